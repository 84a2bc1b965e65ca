package reference

import (
	"os"
	"strings"
)

// ReadList reads a list file of the tests (scenarios not there yet, and
// the like): one "NAME" or "NAME: DETAILS" per line, "#" starting a
// comment. It maps each name to its details, trimmed.
func ReadList(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	entries := map[string]string{}
	for line := range strings.Lines(string(b)) {
		line, _, _ = strings.Cut(line, "#")
		name, details, _ := strings.Cut(line, ":")
		if name = strings.TrimSpace(name); name != "" {
			entries[name] = strings.TrimSpace(details)
		}
	}
	return entries, nil
}
