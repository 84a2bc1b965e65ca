package embedded

import (
	"bufio"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/northlog/northlog/ovsdb/wire"
)

// A server keeps its data database in a file in OVSDB's standalone format
// (ovsdb(5)): the schema as the first record, then one record per committed
// transaction, each row as its new column values or null when deleted. Stock
// ovsdb-tool and ovsdb-server read it. On start the server replays the file
// and rewrites it as the schema and one record of every row; it does so
// again when the file has grown past compactMinSize and four times its size
// after the last rewrite, by at least compactMinRecords records (as
// ovsdb-server: a few large transactions, such as a northd's first one into
// an empty SB, are not worth a rewrite each). Records are not fsynced: a commit survives the
// process, not the machine. A truncated or corrupt record, as a crash while
// writing can leave at the end, ends the replay with a warning.

// compactMinSize is the file size below which the server never rewrites it.
const compactMinSize = 16 << 20

// compactMinRecords is the number of records appended since the last
// rewrite below which the server does not rewrite the file.
const compactMinRecords = 100

// maxRecordSize bounds the length a record header may claim.
const maxRecordSize = 1 << 30

// dbFile is a database file that commits are appended to.
type dbFile struct {
	path          string
	f             *os.File
	size          int64 // bytes written
	compactedSize int64 // size after the last rewrite
	records       int   // records appended since the last rewrite
}

// writeRecord writes one record: "OVSDB JSON <length> <sha1>\n", then the
// JSON text data and a newline, which the length and SHA-1 cover.
func writeRecord(w io.Writer, data []byte) (int64, error) {
	data = append(data, '\n')
	sum := sha1.Sum(data)
	n, err := fmt.Fprintf(w, "OVSDB JSON %d %s\n", len(data), hex.EncodeToString(sum[:]))
	if err != nil {
		return int64(n), err
	}
	m, err := w.Write(data)
	return int64(n + m), err
}

// readRecords reads a database file's records up to the first truncated or
// corrupt one; bad says what was wrong with that one.
func readRecords(r io.Reader) (records []json.RawMessage, bad error) {
	br := bufio.NewReader(r)
	for {
		header, err := br.ReadString('\n')
		if err == io.EOF && header == "" {
			return records, nil
		}
		if err != nil {
			return records, fmt.Errorf("record %d: truncated header", len(records)+1)
		}
		var length int
		var sum string
		if n, _ := fmt.Sscanf(header, "OVSDB JSON %d %s\n", &length, &sum); n != 2 || length <= 0 || length > maxRecordSize {
			return records, fmt.Errorf("record %d: bad header %q", len(records)+1, strings.TrimSpace(header))
		}
		data := make([]byte, length)
		if _, err := io.ReadFull(br, data); err != nil {
			return records, fmt.Errorf("record %d: truncated", len(records)+1)
		}
		if got := sha1.Sum(data); hex.EncodeToString(got[:]) != sum {
			return records, fmt.Errorf("record %d: SHA-1 mismatch", len(records)+1)
		}
		records = append(records, json.RawMessage(data))
	}
}

// openFile fills db from its file, if there is one, then rewrites the file
// compacted and keeps it open for appending. The caller holds s.mu.
func (s *server) openFile(db *database, path string) error {
	f, err := os.Open(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err == nil {
		records, bad := readRecords(f)
		f.Close()
		if bad != nil {
			s.logger.Warn("ovsdb: ignoring the end of a damaged database file", "file", path, "records", len(records), "err", bad)
		}
		if len(records) > 0 {
			if err := s.replay(db, records); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
		}
	}
	db.file = &dbFile{path: path}
	return s.compact(db)
}

// replay loads the rows that a file's records leave into db, as one
// transaction.
func (s *server) replay(db *database, records []json.RawMessage) error {
	var head struct{ Name, Version string }
	if err := json.Unmarshal(records[0], &head); err != nil {
		return fmt.Errorf("first record is not a schema: %w", err)
	}
	if head.Name != db.name || head.Version != db.schema.Version {
		return fmt.Errorf("holds %s schema %s, the server serves %s schema %s; move the file away to start empty",
			head.Name, head.Version, db.name, db.schema.Version)
	}
	t := newTxn(db, 0)
	for i, rec := range records[1:] {
		err := wire.WalkObject(rec, func(name string, changes []byte) error {
			if strings.HasPrefix(name, "_") {
				if name == "_is_diff" && string(changes) == "true" {
					return errors.New("it holds column differences (written by ovsdb-server), which this server does not read")
				}
				return nil
			}
			tb := db.tables[name]
			if tb == nil {
				return fmt.Errorf("no table %s", name)
			}
			return wire.WalkObject(changes, func(uuid string, columns []byte) error {
				if string(columns) == "null" {
					t.replace(tb, uuid, nil)
					return nil
				}
				r := t.current(tb, uuid)
				if r == nil {
					r = tb.newRow(uuid)
					t.replace(tb, uuid, r)
				}
				return wire.WalkObject(columns, func(column string, value []byte) error {
					c, err := tb.column(column)
					if err != nil || c.index < 0 {
						return fmt.Errorf("table %s row %s: unknown column %s", name, uuid, column)
					}
					d, err := c.parseDatum(value, nil, c.min, c.max)
					if err != nil {
						return fmt.Errorf("table %s row %s column %s: %w", name, uuid, column, err)
					}
					r.cols[c.index] = d
					return nil
				})
			})
		})
		if err != nil {
			return fmt.Errorf("record %d: %w", i+2, err)
		}
	}
	if err := s.commit(t); err != nil {
		return fmt.Errorf("loading its rows: %w", err)
	}
	return nil
}

// compact rewrites db's file as its schema and one record of every row, and
// reopens it for appending. The caller holds s.mu.
func (s *server) compact(db *database) error {
	df := db.file
	tmp := df.path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	var size int64
	schema, err := json.Marshal(db.schemaJSON)
	if err == nil {
		size, err = writeRecord(f, schema)
	}
	if err == nil {
		var snap []byte
		if snap, err = s.snapshot(db); err == nil && snap != nil {
			var n int64
			n, err = writeRecord(f, snap)
			size += n
		}
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, df.path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	if df.f != nil {
		df.f.Close()
	}
	df.f, err = os.OpenFile(df.path, os.O_WRONLY|os.O_APPEND, 0)
	df.size, df.compactedSize, df.records = size, size, 0
	return err
}

// snapshot is a transaction record that inserts every row of db, nil if
// db has none.
func (s *server) snapshot(db *database) ([]byte, error) {
	rec := recordStart(int(db.file.size))
	empty := true
	for _, name := range slices.Sorted(maps.Keys(db.tables)) {
		tb := db.tables[name]
		if len(tb.rows) == 0 {
			continue
		}
		empty = false
		rec = append(wire.AppendString(append(rec, ','), name), ':', '{')
		i := 0
		for uuid, r := range tb.rows {
			if i++; i > 1 {
				rec = append(rec, ',')
			}
			rec = append(wire.AppendString(rec, uuid), ':')
			rec = appendRow(rec, r, tb.columns, true)
		}
		rec = append(rec, '}')
	}
	if empty {
		return nil, nil
	}
	return append(rec, '}'), nil
}

// recordStart is the start of a transaction record of about size bytes:
// its opening brace and its date.
func recordStart(size int) []byte {
	return strconv.AppendInt(append(make([]byte, 0, size+64), `{"_date":`...), time.Now().UnixMilli(), 10)
}

// logCommit appends the record of a transaction to db's file: each row it
// inserts with its columns that are not at their default value, each row
// it modifies with the columns that changed, null for each row it deletes.
// size is about the record's: that of the request. The caller holds s.mu.
func (s *server) logCommit(db *database, changes map[*table][]*change, size int) error {
	if db.file.f == nil {
		return errors.New("the database file is not open")
	}
	rec := recordStart(size)
	for tb, rows := range changes {
		rec = append(wire.AppendString(append(rec, ','), tb.name), ':', '{')
		for i, c := range rows {
			if i > 0 {
				rec = append(rec, ',')
			}
			r := c.new
			if r == nil {
				rec = append(wire.AppendString(rec, c.old.uuid), ":null"...)
				continue
			}
			rec = append(wire.AppendString(rec, r.uuid), ':')
			if c.old == nil {
				rec = appendRow(rec, r, tb.columns, true)
				continue
			}
			var columns []*column
			for _, col := range tb.columns {
				if !equalDatums(c.old.cols[col.index], r.cols[col.index]) {
					columns = append(columns, col)
				}
			}
			rec = appendRow(rec, r, columns, false)
		}
		rec = append(rec, '}')
	}
	n, err := writeRecord(db.file.f, append(rec, '}'))
	db.file.size += n
	db.file.records++
	return err
}

// maybeCompact rewrites db's file once it has grown past compactMinSize and
// four times its size after the last rewrite, by compactMinRecords records
// at least. The caller holds s.mu.
func (s *server) maybeCompact(db *database) {
	if db.file.size <= compactMinSize || db.file.size <= 4*db.file.compactedSize || db.file.records < compactMinRecords {
		return
	}
	if err := s.compact(db); err != nil {
		s.logger.Error("ovsdb: cannot compact the database file", "file", db.file.path, "err", err)
	}
}
