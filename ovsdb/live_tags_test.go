package ovsdb

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestLiveContainerTagsOfOneTransaction: container ports of one parent
// that ask for a tag (tag_request 0) in one NB transaction get tags as
// ovn-northd gives them: different ones, the lowest free. Which port gets
// which follows each northd's order, so the tags are compared as a set.
// The port that requests tag 1 is added with --wait=sb: taken in the same
// run as the others, its request is not yet a tag the allocation sees
// (tag_alloc_add_existing_tags), and either northd, when it takes the two
// transactions together, gives tag 1 twice.
func TestLiveContainerTagsOfOneTransaction(t *testing.T) {
	t.Parallel()
	ref, s, _ := startWithReference(t)
	applyBoth(t, ref, s, `ovn-nbctl ls-add sw0 -- lsp-add sw0 vm1 -- lsp-set-addresses vm1 "00:00:00:00:00:01 10.0.0.1"
ovn-nbctl --wait=sb lsp-add sw0 c0 vm1 1
ovn-nbctl --wait=sb lsp-add sw0 c1 vm1 0 -- lsp-add sw0 c2 vm1 0 -- lsp-add sw0 c3 vm1 0`)
	tags := func(remote string) []string {
		out, err := exec.Command("ovn-nbctl", "--db="+remote, "--bare", "--columns=tag", "find", "Logical_Switch_Port", "parent_name=vm1").Output()
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Fields(string(out))
		slices.Sort(got)
		return got
	}
	want, got := tags(ref.NBRemote()), tags(s.NBRemote())
	if len(want) != 4 || !slices.Equal(want, got) {
		t.Fatalf("container tags: reference %v, northlog %v", want, got)
	}
}
