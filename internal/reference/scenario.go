package reference

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/northlog/northlog/relations/schema"
)

// Scenario is an NB setup to compare northlog and the reference on: a bash
// fragment of ovn-nbctl (and ovn-sbctl) commands, run by Instance.Apply.
type Scenario struct {
	Name        string // the file name without .sh
	Description string // the leading comment lines, without "# "
	Script      string
	// Releases are the releases the scenario applies to, from a leading
	// "# releases: 23.03 ..." comment line; nil is every release. A
	// scenario names its releases when it sets up what another release
	// lacks or reads otherwise.
	Releases []schema.Release
}

// releasesPrefix starts the comment line that names a scenario's releases.
const releasesPrefix = "releases:"

// AppliesTo reports whether the scenario applies to release r.
func (sc Scenario) AppliesTo(r schema.Release) bool {
	return sc.Releases == nil || slices.Contains(sc.Releases, r)
}

// LoadScenariosFor is LoadScenarios' scenarios that apply to release r.
func LoadScenariosFor(dir string, r schema.Release) ([]Scenario, error) {
	all, err := LoadScenarios(dir)
	return slices.DeleteFunc(all, func(sc Scenario) bool { return !sc.AppliesTo(r) }), err
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
			text = strings.TrimSpace(text)
			if names, ok := strings.CutPrefix(text, releasesPrefix); ok {
				if sc.Releases, err = parseReleases(names); err != nil {
					return nil, fmt.Errorf("reference: %s: %w", f, err)
				}
				continue
			}
			desc = append(desc, text)
		}
		sc.Description = strings.Join(desc, "\n")
		out = append(out, sc)
	}
	return out, nil
}

// parseReleases reads the releases of a "# releases:" line, separated by
// spaces or commas.
func parseReleases(names string) ([]schema.Release, error) {
	var out []schema.Release
	for _, name := range strings.FieldsFunc(names, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		r, err := schema.Parse(name)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%q names no release", releasesPrefix+names)
	}
	return out, nil
}
