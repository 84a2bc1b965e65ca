package reference

import (
	"maps"
	"os"
	"path/filepath"
	"testing"
)

func TestReadList(t *testing.T) {
	path := filepath.Join(t.TempDir(), "list.txt")
	text := "# a comment: not an entry\n\nlr_bfd\n  ls_acl: matched 3, missing 1; ls_in_acl # why\nlb_x:\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadList(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"lr_bfd": "", "ls_acl": "matched 3, missing 1; ls_in_acl", "lb_x": ""}
	if !maps.Equal(got, want) {
		t.Fatalf("ReadList = %q, want %q", got, want)
	}
	if _, err := ReadList(filepath.Join(t.TempDir(), "none")); !os.IsNotExist(err) {
		t.Fatalf("missing file: err %v", err)
	}
}
