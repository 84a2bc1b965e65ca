package ruletest

import (
	"slices"

	"github.com/northlog/northlog/engine"
	"github.com/northlog/northlog/rules"
	"pgregory.net/rapid"
)

// ownInput is an input of the program's own that the state holds, fed to
// a recompute by load.
type ownInput interface {
	load(t *rapid.T, p *rules.Program)
}

// inputMembers are the tuples of input name, in the order added.
type inputMembers[T comparable] struct {
	name    string
	members []T
}

func (in *inputMembers[T]) load(t *rapid.T, p *rules.Program) {
	input := inputOf[T](t, p, in.name)
	for _, x := range in.members {
		input.Insert(x)
	}
}

// inputOf is p's input of tuples T named name; t fails without one.
func inputOf[T comparable](t *rapid.T, p *rules.Program, name string) *engine.Input[T] {
	in := engine.InputOf[T](p.Circuit, name)
	if in == nil {
		t.Fatalf("ruletest: the program has no input %q of %T", name, *new(T))
	}
	return in
}

// SetInput records whether x is in the program's own input named name, a
// table beside the NB that one of its rules adds to the NB's circuit
// (engine.NewInput[T](nb.Circuit, name)), and feeds the change to the
// program under test; Load feeds the recompute the whole input, as it
// does the NB.
func SetInput[T comparable](t *rapid.T, s *State, name string, x T, in bool) {
	members, ok := s.inputs[name].(*inputMembers[T])
	if !ok {
		if s.inputs[name] != nil {
			t.Fatalf("ruletest: input %q does not hold %T", name, x)
		}
		members = &inputMembers[T]{name: name}
		s.inputs[name] = members
	}
	inputOf[T](t, s.Program, name).Set(x, in)
	switch i := slices.Index(members.members, x); {
	case in && i < 0:
		members.members = append(members.members, x)
	case !in && i >= 0:
		members.members = slices.Delete(members.members, i, i+1)
	}
}

// Input is what the program's own input named name holds, in the order
// added: what a change picks from.
func Input[T comparable](s *State, name string) []T {
	members, _ := s.inputs[name].(*inputMembers[T])
	if members == nil {
		return nil
	}
	return slices.Clone(members.members)
}
