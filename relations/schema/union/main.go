// Command union writes the union of every release's NB or SB schema
// (relations/schema), from which relations/nb and relations/sb are
// generated: one set of models serves every release (see their package
// docs).
//
//	go run ../schema/union nb union.ovsschema
package main

import (
	"fmt"
	"os"

	"github.com/northlog/northlog/relations/schema"
)

func main() {
	if len(os.Args) != 3 || os.Args[1] != "nb" && os.Args[1] != "sb" {
		fmt.Fprintln(os.Stderr, "usage: union nb|sb OUTPUT")
		os.Exit(2)
	}
	b, err := schema.Union(os.Args[1] == "nb")
	if err == nil {
		err = os.WriteFile(os.Args[2], b, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "union:", err)
		os.Exit(1)
	}
}
