package usl

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/dbarena/dbarena/internal/bounds"
)

// nNames are the header names ReadCSV takes for the N column, lower case.
func nNames() []string {
	return []string{"n", "clients", "threads", "nodes", "load", "concurrency", "users", "processors"}
}

// xNames are the header names ReadCSV takes for the X column, lower case.
func xNames() []string {
	return []string{"x", "throughput", "tput", "ops", "ops_per_sec", "ops_sec", "throughput_ops_sec"}
}

// ReadCSV reads points from CSV. The header line names the columns: N is
// the column named n, clients, threads, nodes, load, concurrency, users
// or processors (any case), else the first column that is not X; X is
// the one named x, throughput, tput, ops, ops_per_sec, ops_sec or
// throughput_ops_sec, else the first column that is not N. Other
// columns are ignored. A file whose first line is all numbers has no
// header, and N and X are its first two columns. Lines starting with #
// are comments, so a data file can cite its source. Repeated N values
// are repetitions and all are kept.
//
// Every value must be a positive, finite number; an error names the
// file (name), the line and the column. At most bounds.MaxFileBytes are
// read: a sweep is a few lines, and a stream without line breaks
// (/dev/zero) would otherwise be buffered until the memory ran out.
func ReadCSV(r io.Reader, name string) ([]Point, error) {
	cr := csv.NewReader(bounds.NewReader(r, name, bounds.MaxFileBytes))
	cr.TrimLeadingSpace = true
	cr.Comment = '#'
	first, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: empty file: want a header line and points", name)
	}
	if err != nil {
		return nil, csvError(name, err)
	}
	first[0] = strings.TrimPrefix(first[0], "\ufeff") // spreadsheets write a byte-order mark
	if len(first) < 2 {
		return nil, fmt.Errorf("%s:1: want at least two columns (N and throughput), got %d", name, len(first))
	}
	var pts []Point
	cols := columns{n: 0, x: 1}
	if numeric(first) {
		line, _ := cr.FieldPos(0)
		p, err := cols.point(first, name, line)
		if err != nil {
			return nil, err
		}
		pts = append(pts, p)
	} else {
		cols = findColumns(first)
	}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, csvError(name, err)
		}
		line, _ := cr.FieldPos(0)
		p, err := cols.point(rec, name, line)
		if err != nil {
			return nil, err
		}
		pts = append(pts, p)
	}
	if len(pts) == 0 {
		return nil, fmt.Errorf("%s: no points after the header", name)
	}
	return pts, nil
}

// columns are the indices of N and X in a record, and the header names
// for errors (nil without a header).
type columns struct {
	n, x int
	head []string
}

// findColumns picks N and X from the header by name, else by position.
// The two name lists share no name, so they never pick the same column.
func findColumns(head []string) columns {
	c := columns{n: find(head, nNames()), x: find(head, xNames()), head: head}
	if c.n < 0 {
		c.n = other(c.x)
	}
	if c.x < 0 {
		c.x = other(c.n)
	}
	return c
}

// other is the first column index that is not i.
func other(i int) int {
	if i == 0 {
		return 1
	}
	return 0
}

// point parses the N and X fields of rec, read from line of file name.
func (c columns) point(rec []string, name string, line int) (Point, error) {
	n, err := c.value(rec, c.n, name, line)
	if err != nil {
		return Point{}, err
	}
	x, err := c.value(rec, c.x, name, line)
	if err != nil {
		return Point{}, err
	}
	return Point{N: n, X: x}, nil
}

// value parses field i of rec as a positive, finite number.
func (c columns) value(rec []string, i int, name string, line int) (float64, error) {
	col := strconv.Itoa(i + 1)
	if c.head != nil {
		col = c.head[i]
	}
	s := strings.TrimSpace(rec[i])
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("%s:%d: column %s: %q is not a number", name, line, col, s)
	}
	if !(v > 0) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%s:%d: column %s: %s: want a positive, finite number", name, line, col, s)
	}
	return v, nil
}

// csvError puts the file name in front of a CSV syntax error and keeps
// the line and column the parser found.
func csvError(name string, err error) error {
	var tl *bounds.TooLargeError
	if errors.As(err, &tl) {
		return err // it names the file
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s:%d:%d: %w", name, pe.Line, pe.Column, pe.Err)
	}
	return fmt.Errorf("%s: %w", name, err)
}

// numeric reports whether every field of rec is a number: a data line,
// not a header.
func numeric(rec []string) bool {
	for _, f := range rec {
		if _, err := strconv.ParseFloat(strings.TrimSpace(f), 64); err != nil {
			return false
		}
	}
	return true
}

// find returns the index of the first header in names, or -1.
func find(head, names []string) int {
	for i, h := range head {
		h = strings.ToLower(strings.TrimSpace(h))
		for _, n := range names {
			if h == n {
				return i
			}
		}
	}
	return -1
}
