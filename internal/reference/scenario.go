package reference

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Scenario is an NB setup to compare northlog and the reference on: a bash
// fragment of ovn-nbctl (and ovn-sbctl) commands, run by Instance.Apply.
type Scenario struct {
	Name        string // the file name without .sh
	Description string // the leading comment lines, without "# "
	Script      string
}

// LoadScenarios reads every DIR/*.sh file as a Scenario, in file name order.
func LoadScenarios(dir string) ([]Scenario, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.sh"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("reference: no scenarios (*.sh) in %s", dir)
	}
	var out []Scenario
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		sc := Scenario{Name: strings.TrimSuffix(filepath.Base(f), ".sh"), Script: string(b)}
		var desc []string
		for line := range strings.Lines(sc.Script) {
			text, ok := strings.CutPrefix(strings.TrimSpace(line), "#")
			if !ok {
				break
			}
			desc = append(desc, strings.TrimSpace(text))
		}
		sc.Description = strings.Join(desc, "\n")
		out = append(out, sc)
	}
	return out, nil
}
