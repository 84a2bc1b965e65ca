package sb

import (
	"encoding/json"
	"reflect"
	"testing"

	releases "github.com/northlog/northlog/relations/schema"
	"github.com/ovn-org/libovsdb/model"
	"github.com/ovn-org/libovsdb/ovsdb"
)

// The generated package must come from the union of the releases' schemas
// (union.ovsschema beside it): its embedded schema equals the union, and it
// has a valid model for every table. A stale generation fails here.
func TestModelsMatchUnion(t *testing.T) {
	raw, err := releases.Union(false)
	if err != nil {
		t.Fatal(err)
	}
	var schema ovsdb.DatabaseSchema
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatal(err)
	}
	if embedded := Schema(); !reflect.DeepEqual(schema, embedded) {
		t.Fatalf("embedded schema %s %s differs from the union %s %s: run go generate",
			embedded.Name, embedded.Version, schema.Name, schema.Version)
	}
	clientModel, err := FullDatabaseModel()
	if err != nil {
		t.Fatal(err)
	}
	dbModel, errs := model.NewDatabaseModel(schema, clientModel)
	if len(errs) > 0 {
		t.Fatalf("models do not match the union: %v", errs)
	}
	if got, want := len(dbModel.Types()), len(schema.Tables); got != want {
		t.Fatalf("%d models for %d tables", got, want)
	}
}
