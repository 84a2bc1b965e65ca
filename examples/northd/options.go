package main

import (
	"fmt"
	"slices"
	"strings"
)

// argKind says whether an option takes an argument, as getopt_long's
// no_argument, required_argument and optional_argument.
type argKind int

const (
	noArg argKind = iota
	requiredArg
	optionalArg
)

// option is one command-line option: its long name, its one-letter form
// (0 for none), whether it takes an argument, and what it does with it
// (has is false when an optional argument was not given).
type option struct {
	long  string
	short byte
	arg   argKind
	set   func(value string, has bool) error
}

// parseOptions reads args as glibc's getopt_long does for ovn-northd:
// "--name", "--name=VALUE" or "--name VALUE" (a required argument), a
// unique prefix of a long name, "-x", "-xVALUE" or "-x VALUE", grouped
// short options, "--" ending the options. Operands are returned. An error
// is getopt's message (without the program name).
func parseOptions(opts []option, args []string) ([]string, error) {
	var operands []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(operands, args[i+1:]...), nil
		case strings.HasPrefix(a, "--"):
			name, value, hasValue := strings.Cut(a[2:], "=")
			o, err := findLong(opts, name)
			if err != nil {
				return nil, err
			}
			switch o.arg {
			case noArg:
				if hasValue {
					return nil, fmt.Errorf("option '--%s' doesn't allow an argument", o.long)
				}
			case requiredArg:
				if !hasValue {
					if i+1 == len(args) {
						return nil, fmt.Errorf("option '--%s' requires an argument", o.long)
					}
					i++
					value, hasValue = args[i], true
				}
			}
			if err := o.set(value, hasValue); err != nil {
				return nil, err
			}
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); j++ {
				k := slices.IndexFunc(opts, func(o option) bool { return o.short == a[j] })
				if k < 0 {
					return nil, fmt.Errorf("invalid option -- '%c'", a[j])
				}
				o := opts[k]
				rest := a[j+1:]
				if o.arg == noArg {
					if err := o.set("", false); err != nil {
						return nil, err
					}
					continue
				}
				if rest == "" && o.arg == requiredArg {
					if i+1 == len(args) {
						return nil, fmt.Errorf("option requires an argument -- '%c'", a[j])
					}
					i++
					rest = args[i]
				}
				if err := o.set(rest, rest != ""); err != nil {
					return nil, err
				}
				break
			}
		default:
			operands = append(operands, a)
		}
	}
	return operands, nil
}

// findLong finds the option named name, or the only one name abbreviates.
func findLong(opts []option, name string) (option, error) {
	var matches []option
	for _, o := range opts {
		if o.long == name {
			return o, nil
		}
		if strings.HasPrefix(o.long, name) {
			matches = append(matches, o)
		}
	}
	switch len(matches) {
	case 0:
		return option{}, fmt.Errorf("unrecognized option '--%s'", name)
	case 1:
		return matches[0], nil
	}
	var names []string
	for _, o := range matches {
		names = append(names, "'--"+o.long+"'")
	}
	return option{}, fmt.Errorf("option '--%s' is ambiguous; possibilities: %s", name, strings.Join(names, " "))
}
