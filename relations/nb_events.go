package relations

import "github.com/ovn-org/libovsdb/model"

// Events adapts an NB to libovsdb's cache.EventHandler, so that a libovsdb
// client's cache feeds the program: each event's row is applied by its
// _uuid (Upsert, Delete), as a copy, since the cache may reuse its models.
// Errors (a row of the wrong model for its table) go to OnError; with it
// nil they are dropped. The events must come between the program's Steps,
// not during one.
type Events struct {
	NB      *NB
	OnError func(table string, err error)
}

// OnAdd feeds a row the cache added.
func (e Events) OnAdd(table string, row model.Model) {
	e.report(table, e.NB.Upsert(table, model.Clone(row)))
}

// OnUpdate feeds a row's new version; the old one is the one last fed.
func (e Events) OnUpdate(table string, _, row model.Model) {
	e.report(table, e.NB.Upsert(table, model.Clone(row)))
}

// OnDelete feeds a row's deletion.
func (e Events) OnDelete(table string, row model.Model) {
	e.report(table, e.NB.Delete(table, uuidOf(row)))
}

func (e Events) report(table string, err error) {
	if err != nil && e.OnError != nil {
		e.OnError(table, err)
	}
}
