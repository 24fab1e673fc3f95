package usl

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Column names ReadCSV recognises, lower case.
func nNames() []string {
	return []string{"n", "clients", "threads", "nodes", "load", "concurrency", "users"}
}

func xNames() []string {
	return []string{"x", "throughput", "tput", "ops", "ops_per_sec", "ops_sec", "throughput_ops_sec"}
}

// ReadCSV reads points from CSV with a header line: N from a column
// named n, clients, threads, nodes, load, concurrency or users (else the
// first), X from x, throughput, tput, ops, ops_per_sec, ops_sec or
// throughput_ops_sec (else the second). Errors name name, line and
// column.
func ReadCSV(r io.Reader, name string) ([]Point, error) {
	cr := csv.NewReader(r)
	cr.TrimLeadingSpace = true
	head, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: empty file: want a header line and points", name)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(head) < 2 {
		return nil, fmt.Errorf("%s:1: want at least two columns (N and throughput), got %d", name, len(head))
	}
	ni, xi := find(head, nNames(), 0), find(head, xNames(), 1)
	if ni == xi {
		return nil, fmt.Errorf("%s:1: cannot tell the N column from the throughput column in %q", name, strings.Join(head, ","))
	}
	var pts []Point
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return pts, nil
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		n, err := strconv.ParseFloat(strings.TrimSpace(rec[ni]), 64)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: column %s: %q is not a number", name, line, head[ni], rec[ni])
		}
		x, err := strconv.ParseFloat(strings.TrimSpace(rec[xi]), 64)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: column %s: %q is not a number", name, line, head[xi], rec[xi])
		}
		pts = append(pts, Point{N: n, X: x})
	}
}

// find returns the index of the first header in names, or def.
func find(head, names []string, def int) int {
	for i, h := range head {
		h = strings.ToLower(strings.TrimSpace(h))
		for _, n := range names {
			if h == n {
				return i
			}
		}
	}
	return def
}
