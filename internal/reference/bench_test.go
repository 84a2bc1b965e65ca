package reference

import (
	"os"
	"testing"
)

// BenchmarkScenario measures the cost of one scenario's reference flows,
// starting fresh servers for each scenario or resetting one instance:
//
//	go test -run '^$' -bench Scenario ./internal/reference
func BenchmarkScenario(b *testing.B) {
	Require(b)
	for _, sc := range []struct{ name, script string }{
		{"empty_switch", "ovn-nbctl ls-add sw0"},
		{"random", RandomTopology(1, DefaultTopology())},
	} {
		b.Run("fresh/"+sc.name, func(b *testing.B) {
			root := b.TempDir()
			for b.Loop() {
				dir, err := os.MkdirTemp(root, "")
				if err != nil {
					b.Fatal(err)
				}
				ref, err := Launch(b.Context(), dir)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := ref.Run(b.Context(), sc.script); err != nil {
					b.Fatal(err)
				}
				ref.Close()
			}
		})
		b.Run("reset/"+sc.name, func(b *testing.B) {
			ref := Start(b)
			for b.Loop() {
				if _, err := ref.Run(b.Context(), sc.script); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
