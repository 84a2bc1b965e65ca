package embedded

import (
	"fmt"
	"sync"

	"github.com/go-logr/logr"
	"github.com/google/uuid"
	"github.com/ovn-org/libovsdb/cache"
	dbase "github.com/ovn-org/libovsdb/database"
	"github.com/ovn-org/libovsdb/database/transaction"
	"github.com/ovn-org/libovsdb/model"
	"github.com/ovn-org/libovsdb/ovsdb"
)

// store holds a server's databases in libovsdb's table caches and runs
// libovsdb's transaction code on them, as libovsdb's database/inmemory
// does, with two differences. It tracks no references: the server does
// (refs.go). And it drains each cache's change events, which nothing here
// reads: inmemory leaves them queued, so that past 65,536 changes every
// change logs "dropping event" to stderr and the queue keeps that many old
// rows alive.
type store struct {
	mu     sync.RWMutex
	caches map[string]*cache.TableCache
	models map[string]model.ClientDBModel
	logger logr.Logger
	stop   chan struct{} // closed by close: the caches' event loops end
}

func newStore(models map[string]model.ClientDBModel) *store {
	return &store{caches: map[string]*cache.TableCache{}, models: models, logger: logr.Discard(), stop: make(chan struct{})}
}

func (s *store) close() { close(s.stop) }

func (s *store) CreateDatabase(name string, schema ovsdb.DatabaseSchema) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	client, ok := s.models[schema.Name]
	if !ok {
		return fmt.Errorf("no model of database %s", schema.Name)
	}
	dbModel, errs := model.NewDatabaseModel(schema, client)
	if len(errs) > 0 {
		return fmt.Errorf("database %s: model does not fit schema: %v", name, errs)
	}
	c, err := cache.NewTableCache(dbModel, nil, &s.logger)
	if err != nil {
		return err
	}
	go c.Run(s.stop)
	s.caches[name] = c
	return nil
}

func (s *store) table(database string) *cache.TableCache {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.caches[database]
}

func (s *store) Exists(database string) bool { return s.table(database) != nil }

func (s *store) NewTransaction(database string) dbase.Transaction {
	var m model.DatabaseModel
	if c := s.table(database); c != nil {
		m = c.DatabaseModel()
	}
	t := transaction.NewTransaction(m, database, s, &s.logger)
	return &t
}

func (s *store) Commit(database string, _ uuid.UUID, update dbase.Update) error {
	c := s.table(database)
	if c == nil {
		return fmt.Errorf("no database %s", database)
	}
	return c.ApplyCacheUpdate(update)
}

func (s *store) CheckIndexes(database, table string, m model.Model) error {
	c := s.table(database)
	if c == nil {
		return nil
	}
	return c.Table(table).IndexExists(m)
}

// rowCache is database's table.
func (s *store) rowCache(database, table string) (*cache.RowCache, error) {
	c := s.table(database)
	if c == nil {
		return nil, fmt.Errorf("no database %s", database)
	}
	t := c.Table(table)
	if t == nil {
		return nil, fmt.Errorf("no table %s in database %s", table, database)
	}
	return t, nil
}

func (s *store) List(database, table string, conditions ...ovsdb.Condition) (map[string]model.Model, error) {
	t, err := s.rowCache(database, table)
	if err != nil {
		return nil, err
	}
	return t.RowsByCondition(conditions)
}

func (s *store) Get(database, table, uuid string) (model.Model, error) {
	t, err := s.rowCache(database, table)
	if err != nil {
		return nil, err
	}
	return t.Row(uuid), nil
}

// rows is every row of database's table, by uuid: the cached models
// themselves, not copies, which the caller must not change (the cache
// replaces a row's model when it changes, so they stay as they are).
func (s *store) rows(database, table string) (map[string]model.Model, error) {
	t, err := s.rowCache(database, table)
	if err != nil {
		return nil, err
	}
	return t.RowsShallow(), nil
}

// has reports whether database's table has the row uuid, without the copy
// Get makes.
func (s *store) has(database, table, uuid string) bool {
	t, err := s.rowCache(database, table)
	return err == nil && t.HasRow(uuid)
}

// GetReferences finds none: libovsdb's transaction sees a schema without
// references (libovsdbSchema).
func (s *store) GetReferences(string, string, string) (dbase.References, error) {
	return dbase.References{}, nil
}
