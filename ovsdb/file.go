package ovsdb

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ovn-org/libovsdb/model"
	lovsdb "github.com/ovn-org/libovsdb/ovsdb"

	"github.com/northlog/northlog/ovsdb/wire"
	"github.com/northlog/northlog/relations/nb"
	"github.com/northlog/northlog/relations/schema"
)

// Database is the contents of a standalone OVSDB database file: its schema
// and every row its transactions leave, as ovsdb-server would load it.
type Database struct {
	Schema lovsdb.DatabaseSchema
	// Tables holds the rows by table name and row UUID. Each row has every
	// column of its table (defaults filled in) in libovsdb's OVSDB notation:
	// string, int, float64, bool or lovsdb.UUID atoms; lovsdb.OvsSet for
	// set columns, including optional (at most one element) ones;
	// lovsdb.OvsMap for maps. Rows carry no "_uuid" column: the UUID is the
	// key. Rows share values (empty defaults): treat them as read-only.
	Tables map[string]map[string]lovsdb.Row
	// Warning reports what was ignored, as ovsdb-server ignores it when it
	// loads the file (logging an error and serving the rest): a
	// transaction that does not fit the schema (unknown table or column, a
	// value of the wrong type, a delete of a missing row) is skipped as a
	// whole and later ones still apply; a damaged record (cut short, bad
	// checksum, not JSON), taken to be where a crash truncated the file,
	// ends the reading. Several problems are joined (errors.Join).
	Warning error

	defaults map[string]lovsdb.Row // by table: a row of default values
}

// Default is the default value of table's column, as Tables' rows hold
// it; nil for a column the schema lacks.
func (db *Database) Default(table, column string) any { return db.defaults[table][column] }

// headerRE matches an OVSDB log record header: magic, JSON length, SHA-1.
var headerRE = regexp.MustCompile(`^OVSDB (JSON|CLUSTER) ([0-9]+) ([0-9a-f]{40})\n$`)

// maxHeader bounds a header line; real ones are under 80 bytes.
const maxHeader = 128

// ReadDatabaseFile reads a standalone OVSDB database file as ovsdb-server
// 3.1 writes it: records "OVSDB JSON <length> <sha1>\n<json>\n", the first
// the schema, each later one a transaction that inserts, modifies
// ("_is_diff": columns hold new values, or for set and map columns the
// difference to apply) or deletes (null) rows. What ovsdb-server would
// ignore in the file is reported in Database.Warning; a file it would not
// load (not an OVSDB file, a bad schema) is an error, and so is a clustered
// database file, with a hint on how to convert it.
func ReadDatabaseFile(path string) (*Database, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	db, err := readDatabase(bufio.NewReaderSize(f, 1<<16))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if db.Warning != nil {
		db.Warning = fmt.Errorf("%s: %w", path, db.Warning)
	}
	return db, nil
}

// readDatabase reads the records of a database file from r.
func readDatabase(r *bufio.Reader) (*Database, error) {
	first, err := readRecord(r, 0)
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("not an OVSDB database file: empty")
		}
		return nil, fmt.Errorf("not an OVSDB database file: %w", err)
	}
	if first.magic == "CLUSTER" {
		return nil, errors.New("a clustered database file: convert it with `ovsdb-tool cluster-to-standalone STANDALONE_FILE CLUSTERED_FILE` and read the standalone file")
	}
	schema, err := parseSchema(first.data)
	if err != nil {
		return nil, fmt.Errorf("schema record: %w", err)
	}
	db := &Database{
		Schema:   schema,
		Tables:   make(map[string]map[string]lovsdb.Row, len(schema.Tables)),
		defaults: make(map[string]lovsdb.Row, len(schema.Tables)),
	}
	for name, ts := range schema.Tables {
		db.Tables[name] = map[string]lovsdb.Row{}
		db.defaults[name] = defaultRow(&ts)
	}
	offset := first.next
	for n := 1; ; n++ {
		rec, err := readRecord(r, offset)
		if errors.Is(err, io.EOF) {
			return db, nil
		}
		if err == nil && rec.magic != "JSON" {
			err = fmt.Errorf("%q record in a standalone database file", rec.magic)
		}
		if err != nil {
			db.warn(fmt.Errorf("record %d at byte %d ignored with the rest of the file: %w", n, offset, err))
			return db, nil
		}
		if err := db.apply(rec.value); err != nil {
			db.warn(fmt.Errorf("transaction in record %d at byte %d ignored: %w", n, offset, err))
		}
		offset = rec.next
	}
}

// warn adds a problem to db.Warning.
func (db *Database) warn(err error) {
	db.Warning = errors.Join(db.Warning, err)
}

// record is one framed record of a database file.
type record struct {
	magic string
	data  []byte
	value any   // data decoded, numbers as json.Number
	next  int64 // file offset just past the record
}

// readRecord reads the record at offset. It returns io.EOF at a clean end
// of file and another error for a damaged record.
func readRecord(r *bufio.Reader, offset int64) (record, error) {
	line, err := r.ReadSlice('\n')
	if len(line) == 0 && errors.Is(err, io.EOF) {
		return record{}, io.EOF
	}
	if errors.Is(err, bufio.ErrBufferFull) || len(line) > maxHeader {
		return record{}, errors.New("record header too long")
	}
	if err != nil {
		return record{}, fmt.Errorf("record header cut short: %q", line)
	}
	m := headerRE.FindSubmatch(line)
	if m == nil {
		return record{}, fmt.Errorf("bad record header %q", bytes.TrimSuffix(line, []byte("\n")))
	}
	magic, sum := string(m[1]), string(m[3])
	n, err := strconv.ParseInt(string(m[2]), 10, 64)
	if err != nil || n > 1<<40 {
		return record{}, fmt.Errorf("bad record length %s", m[2])
	}
	offset += int64(len(line))
	// Read through a LimitReader so a huge bogus length costs only what
	// the file really holds.
	data, err := io.ReadAll(io.LimitReader(r, n))
	if err != nil {
		return record{}, err
	}
	if int64(len(data)) < n {
		return record{}, fmt.Errorf("record cut short: %d of %d bytes", len(data), n)
	}
	if got := sha1.Sum(data); hex.EncodeToString(got[:]) != sum {
		return record{}, fmt.Errorf("bad record checksum %x, header says %s", got, sum)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var value any
	if err := dec.Decode(&value); err != nil {
		return record{}, fmt.Errorf("record is not JSON: %w", err)
	}
	if rest := data[dec.InputOffset():]; len(bytes.TrimSpace(rest)) > 0 {
		return record{}, errors.New("record has more than one JSON value")
	}
	return record{magic: magic, data: data, value: value, next: offset + n}, nil
}

// apply replays one transaction record on db: all of it, or, on an error,
// none of it.
func (db *Database) apply(value any) error {
	txn, ok := value.(map[string]any)
	if !ok {
		return errors.New("transaction is not a JSON object")
	}
	isDiff := false
	if v, ok := txn["_is_diff"]; ok {
		if isDiff, ok = v.(bool); !ok {
			return fmt.Errorf("_is_diff is %v, not a boolean", v)
		}
	}
	// New rows by table and UUID, nil for a deleted row, committed once the
	// whole transaction has been read. Tables and rows go in name order, so
	// that the error reported is stable.
	staged := map[string]map[string]lovsdb.Row{}
	for _, table := range slices.Sorted(maps.Keys(txn)) {
		if table == "" || table[0] == '_' {
			continue // "_date", "_comment", "_is_diff"
		}
		ts := db.Schema.Table(table)
		if ts == nil {
			return fmt.Errorf("unknown table %q", table)
		}
		rows, ok := txn[table].(map[string]any)
		if !ok {
			return fmt.Errorf("table %s: rows are not a JSON object", table)
		}
		staged[table] = make(map[string]lovsdb.Row, len(rows))
		for _, key := range slices.Sorted(maps.Keys(rows)) {
			if !wire.IsUUID(key) {
				return fmt.Errorf("table %s: bad row UUID %q", table, key)
			}
			uuid := strings.ToLower(key)
			row, err := db.newRow(table, ts, uuid, rows[key], isDiff)
			if err != nil {
				return fmt.Errorf("table %s row %s: %w", table, uuid, err)
			}
			staged[table][uuid] = row
		}
	}
	for table, rows := range staged {
		for uuid, row := range rows {
			if row == nil {
				delete(db.Tables[table], uuid)
			} else {
				db.Tables[table][uuid] = row
			}
		}
	}
	return nil
}

// newRow is what a transaction makes of one row: nil for a delete (value
// null), else the row inserted or modified.
func (db *Database) newRow(table string, ts *lovsdb.TableSchema, uuid string, value any, isDiff bool) (lovsdb.Row, error) {
	old, exists := db.Tables[table][uuid]
	if value == nil {
		if !exists {
			return nil, errors.New("deletes a row that does not exist")
		}
		return nil, nil
	}
	cols, ok := value.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("row is not a JSON object: %v", value)
	}
	if !exists {
		old = db.defaults[table]
	}
	row := maps.Clone(old)
	for _, name := range slices.Sorted(maps.Keys(cols)) {
		col := ts.Column(name)
		if col == nil || name == "_uuid" || name == "_version" {
			return nil, fmt.Errorf("unknown column %q", name)
		}
		v, err := decodeDatum(col.TypeObj, cols[name], isDiff)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", name, err)
		}
		if isDiff {
			if v, err = applyDiff(col.TypeObj, row[name], v); err != nil {
				return nil, fmt.Errorf("column %s: %w", name, err)
			}
		}
		row[name] = v
	}
	return row, nil
}

// defaultRow is a row of ts with every column at its OVSDB default.
func defaultRow(ts *lovsdb.TableSchema) lovsdb.Row {
	row := make(lovsdb.Row, len(ts.Columns))
	for name, col := range ts.Columns {
		row[name] = defaultDatum(col.TypeObj)
	}
	return row
}

// defaultDatum is the OVSDB default of a column type: the empty set or map,
// or for a scalar the default atom of its type.
func defaultDatum(t *lovsdb.ColumnType) any {
	switch {
	case t.Value != nil:
		return lovsdb.OvsMap{GoMap: map[any]any{}}
	case t.Min() != 1 || t.Max() != 1:
		return lovsdb.OvsSet{GoSet: []any{}}
	}
	switch t.Key.Type {
	case lovsdb.TypeInteger:
		return 0
	case lovsdb.TypeReal:
		return 0.0
	case lovsdb.TypeBoolean:
		return false
	case lovsdb.TypeUUID:
		return lovsdb.UUID{GoUUID: "00000000-0000-0000-0000-000000000000"}
	}
	return ""
}

// applyDiff applies a diff datum to a column's value as ovsdb-server does
// (ovsdb_datum_apply_diff_in_place): a column that holds at most one value
// takes the diff as its new value; in a set each element of the diff is
// added if absent and removed if present; in a map each pair of the diff
// adds its key if absent, removes it if present with the same value, and
// otherwise sets the new value.
func applyDiff(t *lovsdb.ColumnType, old, diff any) (any, error) {
	hi := t.Max()
	if hi == 1 {
		return diff, nil
	}
	var n int
	var result any
	if t.Value != nil {
		m := maps.Clone(old.(lovsdb.OvsMap).GoMap)
		for k, v := range diff.(lovsdb.OvsMap).GoMap {
			if ov, ok := m[k]; ok && ov == v {
				delete(m, k)
			} else {
				m[k] = v
			}
		}
		n, result = len(m), lovsdb.OvsMap{GoMap: m}
	} else {
		in := make(map[any]bool)
		for _, a := range old.(lovsdb.OvsSet).GoSet {
			in[a] = !in[a]
		}
		for _, a := range diff.(lovsdb.OvsSet).GoSet {
			in[a] = !in[a]
		}
		out := make([]any, 0, len(in))
		for a, present := range in {
			if present {
				out = append(out, a)
			}
		}
		slices.SortFunc(out, compareAtoms)
		n, result = len(out), lovsdb.OvsSet{GoSet: out}
	}
	if n < t.Min() || (hi != lovsdb.Unlimited && n > hi) {
		return nil, fmt.Errorf("diff leaves %d values, outside [%d, %d]", n, t.Min(), hi)
	}
	return result, nil
}

// decodeDatum reads a column value in OVSDB JSON notation (RFC 7047
// <value>, as decoded by encoding/json with UseNumber): an atom,
// ["set", [atoms]], or ["map", [[key, value]...]]. Sets and maps come back as
// lovsdb.OvsSet and lovsdb.OvsMap, also for optional columns. The number of
// elements is checked against the column type, except in the diff of a set
// or map column, which the caller checks once applied.
func decodeDatum(t *lovsdb.ColumnType, value any, isDiff bool) (any, error) {
	var tag string
	var inner []any
	if arr, ok := value.([]any); ok && len(arr) == 2 {
		tag, _ = arr[0].(string)
		inner, ok = arr[1].([]any)
		if !ok && (tag == "set" || tag == "map") {
			return nil, fmt.Errorf("bad %s %v", tag, value)
		}
	}
	checkSize := !(isDiff && t.Max() != 1)
	if t.Value != nil {
		if tag != "map" {
			return nil, fmt.Errorf("want a map, got %v", value)
		}
		m := make(map[any]any, len(inner))
		for _, p := range inner {
			pair, ok := p.([]any)
			if !ok || len(pair) != 2 {
				return nil, fmt.Errorf("bad map pair %v", p)
			}
			k, err := decodeAtom(t.Key, pair[0])
			if err != nil {
				return nil, err
			}
			v, err := decodeAtom(t.Value, pair[1])
			if err != nil {
				return nil, err
			}
			if _, dup := m[k]; dup {
				return nil, fmt.Errorf("duplicate map key %v", k)
			}
			m[k] = v
		}
		if checkSize && (len(m) < t.Min() || t.Max() != lovsdb.Unlimited && len(m) > t.Max()) {
			return nil, fmt.Errorf("%d pairs, outside [%d, %d]", len(m), t.Min(), t.Max())
		}
		return lovsdb.OvsMap{GoMap: m}, nil
	}
	elems := []any{value}
	if tag == "set" {
		elems = inner
	}
	set := make([]any, 0, len(elems))
	for _, e := range elems {
		a, err := decodeAtom(t.Key, e)
		if err != nil {
			return nil, err
		}
		set = append(set, a)
	}
	slices.SortFunc(set, compareAtoms)
	for k := 1; k < len(set); k++ {
		if set[k] == set[k-1] {
			return nil, fmt.Errorf("duplicate set element %v", set[k])
		}
	}
	if t.Min() == 1 && t.Max() == 1 {
		if len(set) != 1 {
			return nil, fmt.Errorf("want one value, got %v", value)
		}
		return set[0], nil
	}
	if checkSize && (len(set) < t.Min() || t.Max() != lovsdb.Unlimited && len(set) > t.Max()) {
		return nil, fmt.Errorf("%d values, outside [%d, %d]", len(set), t.Min(), t.Max())
	}
	return lovsdb.OvsSet{GoSet: set}, nil
}

// compareAtoms orders two atoms of one type as OVSDB orders a set's
// elements (ovsdb_atom_compare_3way), which is the order in which
// ovsdb-client and northd's IDL see them: strings bytewise, numbers by
// value, false before true, UUIDs by value (bytewise in canonical form).
func compareAtoms(a, b any) int {
	switch x := a.(type) {
	case string:
		return cmp.Compare(x, b.(string))
	case int:
		return cmp.Compare(x, b.(int))
	case float64:
		return cmp.Compare(x, b.(float64))
	case bool:
		y := b.(bool)
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	case lovsdb.UUID:
		return cmp.Compare(x.GoUUID, b.(lovsdb.UUID).GoUUID)
	}
	return 0
}

// decodeAtom reads one atom of base type b.
func decodeAtom(b *lovsdb.BaseType, value any) (any, error) {
	switch b.Type {
	case lovsdb.TypeString:
		if s, ok := value.(string); ok {
			return s, nil
		}
	case lovsdb.TypeInteger:
		if n, ok := value.(json.Number); ok {
			if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
				return int(i), nil
			}
		}
	case lovsdb.TypeReal:
		if n, ok := value.(json.Number); ok {
			if f, err := strconv.ParseFloat(string(n), 64); err == nil {
				return f, nil
			}
		}
	case lovsdb.TypeBoolean:
		if v, ok := value.(bool); ok {
			return v, nil
		}
	case lovsdb.TypeUUID:
		if pair, ok := value.([]any); ok && len(pair) == 2 && pair[0] == "uuid" {
			if u, ok := pair[1].(string); ok && wire.IsUUID(u) {
				return lovsdb.UUID{GoUUID: strings.ToLower(u)}, nil
			}
		}
	}
	return nil, fmt.Errorf("want %s, got %v", b.Type, value)
}

// parseSchema reads a schema record. libovsdb's schema decoder trusts its
// input (a column without a type, or an odd "enum", makes it panic), so
// the shape it relies on is checked first.
func parseSchema(data []byte) (lovsdb.DatabaseSchema, error) {
	var shape struct {
		Name   string `json:"name"`
		Tables map[string]struct {
			Columns map[string]*struct {
				Type json.RawMessage `json:"type"`
			} `json:"columns"`
		} `json:"tables"`
	}
	if err := json.Unmarshal(data, &shape); err != nil {
		return lovsdb.DatabaseSchema{}, fmt.Errorf("not an OVSDB schema: %w", err)
	}
	if shape.Name == "" {
		return lovsdb.DatabaseSchema{}, errors.New("not an OVSDB schema: no name")
	}
	for tname, t := range shape.Tables {
		for cname, c := range t.Columns {
			if c == nil {
				return lovsdb.DatabaseSchema{}, fmt.Errorf("table %s column %s: no type", tname, cname)
			}
			if err := checkColumnType(c.Type); err != nil {
				return lovsdb.DatabaseSchema{}, fmt.Errorf("table %s column %s: %w", tname, cname, err)
			}
		}
	}
	var schema lovsdb.DatabaseSchema
	if err := json.Unmarshal(data, &schema); err != nil {
		return lovsdb.DatabaseSchema{}, fmt.Errorf("not an OVSDB schema: %w", err)
	}
	return schema, nil
}

// checkColumnType checks that a column's "type" is an atomic type name or an
// object with a valid "key" base type and optional "value", "min", "max".
func checkColumnType(raw json.RawMessage) error {
	var atomic string
	if json.Unmarshal(raw, &atomic) == nil {
		return checkAtomic(atomic)
	}
	var t struct {
		Key   json.RawMessage `json:"key"`
		Value json.RawMessage `json:"value"`
		Min   *int            `json:"min"`
		Max   any             `json:"max"`
	}
	if err := json.Unmarshal(raw, &t); err != nil {
		return fmt.Errorf("bad type %s", raw)
	}
	if t.Key == nil {
		return fmt.Errorf("type %s has no key", raw)
	}
	if err := checkBaseType(t.Key); err != nil {
		return err
	}
	if t.Value != nil && string(t.Value) != "null" {
		if err := checkBaseType(t.Value); err != nil {
			return err
		}
	}
	min, max := 1, 1
	if t.Min != nil {
		min = *t.Min
	}
	switch m := t.Max.(type) {
	case nil:
	case string:
		if m != "unlimited" {
			return fmt.Errorf("bad max %q", m)
		}
		max = -1
	case float64:
		max = int(m)
		if float64(max) != m || max < 1 {
			return fmt.Errorf("bad max %v", m)
		}
	default:
		return fmt.Errorf("bad max %v", m)
	}
	if min < 0 || min > 1 || (max != -1 && min > max) {
		return fmt.Errorf("bad min %d for max %d", min, max)
	}
	return nil
}

// checkBaseType checks a <base-type>: an atomic type name, or an object
// whose "type" is one and whose "enum", if any, is an atom or a set.
func checkBaseType(raw json.RawMessage) error {
	var atomic string
	if json.Unmarshal(raw, &atomic) == nil {
		return checkAtomic(atomic)
	}
	var b struct {
		Type *string         `json:"type"`
		Enum json.RawMessage `json:"enum"`
	}
	if err := json.Unmarshal(raw, &b); err != nil || b.Type == nil {
		return fmt.Errorf("bad base type %s", raw)
	}
	if err := checkAtomic(*b.Type); err != nil {
		return err
	}
	if len(b.Enum) > 0 && b.Enum[0] == '[' {
		var set []json.RawMessage
		var tag string
		if json.Unmarshal(b.Enum, &set) != nil || len(set) != 2 || json.Unmarshal(set[0], &tag) != nil || tag != "set" {
			return fmt.Errorf("bad enum %s", b.Enum)
		}
		var elems []any
		if json.Unmarshal(set[1], &elems) != nil {
			return fmt.Errorf("bad enum %s", b.Enum)
		}
	}
	return nil
}

func checkAtomic(t string) error {
	switch t {
	case lovsdb.TypeInteger, lovsdb.TypeReal, lovsdb.TypeBoolean, lovsdb.TypeString, lovsdb.TypeUUID:
		return nil
	}
	return fmt.Errorf("unknown atomic type %q", t)
}

// NBContents is an OVN_Northbound database file as models of package
// relations/nb.
type NBContents struct {
	// Release is the OVN release the file's schema version is for.
	Release schema.Release
	// Tables holds each table's rows by table name, sorted by UUID.
	Tables map[string][]model.Model
	// Warning is the file's Database.Warning: what was ignored in it.
	Warning error
}

// All yields every row with its table name, tables in name order.
func (c *NBContents) All() iter.Seq2[string, model.Model] {
	return func(yield func(string, model.Model) bool) {
		for _, table := range slices.Sorted(maps.Keys(c.Tables)) {
			for _, m := range c.Tables[table] {
				if !yield(table, m) {
					return
				}
			}
		}
	}
}

// LoadNB reads a standalone OVN_Northbound database file (see
// ReadDatabaseFile) of a release's schema version (schema.ForNB), and
// converts every row to its nb model with libovsdb's mapper.
func LoadNB(path string) (*NBContents, error) {
	db, err := ReadDatabaseFile(path)
	if err != nil {
		return nil, err
	}
	want := nb.Schema()
	if db.Schema.Name != want.Name {
		return nil, fmt.Errorf("%s: a %s database, not %s", path, db.Schema.Name, want.Name)
	}
	release, err := schema.ForNB(db.Schema.Version)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	// The models are every release's: what this release's schema lacks
	// reads as empty.
	full := db.Schema
	full.Tables = maps.Clone(full.Tables)
	wire.CompleteSchema(&full, want)
	dbModel, err := wire.NewModel(full, nb.FullDatabaseModel)
	if err != nil {
		return nil, fmt.Errorf("%s: schema does not fit the nb models: %w", path, err)
	}
	out := &NBContents{Release: release, Tables: make(map[string][]model.Model, len(db.Tables)), Warning: db.Warning}
	for table, rows := range db.Tables {
		ms := make([]model.Model, 0, len(rows))
		for _, uuid := range slices.Sorted(maps.Keys(rows)) {
			row := rows[uuid]
			m, err := model.CreateModel(dbModel, table, &row, uuid)
			if err != nil {
				return nil, fmt.Errorf("%s: table %s row %s: %w", path, table, uuid, err)
			}
			ms = append(ms, m)
		}
		out.Tables[table] = ms
	}
	return out, nil
}
