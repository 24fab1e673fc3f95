package dynamodb_test

import (
	"context"
	"encoding/json"
	"hash/crc32"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/driver/dynamodb"
)

// fakeServer answers the DynamoDB JSON protocol with canned responses, to
// inject the failures DynamoDB Local never produces (throttling, 5xx,
// unprocessed batch items) and to see the requests the driver builds. It
// stands in for no behaviour that a real server could show.
type fakeServer struct {
	srv *httptest.Server
	// answer returns the status and JSON body for the nth request (from 0)
	// of an operation ("GetItem"). DescribeTable without an answer is
	// ResourceNotFound, so that Open's check passes.
	answer func(op string, n int, body map[string]any) (int, string)

	mu       sync.Mutex
	requests map[string][]map[string]any
}

func newFakeServer(t *testing.T, answer func(op string, n int, body map[string]any) (int, string)) *fakeServer {
	t.Helper()
	f := &fakeServer{answer: answer, requests: map[string][]map[string]any{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	op := strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "DynamoDB_20120810.")
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(raw, &body)
	f.mu.Lock()
	n := len(f.requests[op])
	f.requests[op] = append(f.requests[op], body)
	f.mu.Unlock()
	status, resp := 200, "{}"
	if f.answer != nil {
		status, resp = f.answer(op, n, body)
	}
	if status == 0 {
		status, resp = 200, "{}"
		if op == "DescribeTable" {
			status, resp = apiError(400, "ResourceNotFoundException", "Requested resource not found")
		}
	}
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.Header().Set("X-Amz-Crc32", strconv.FormatUint(uint64(crc32.ChecksumIEEE([]byte(resp))), 10))
	w.WriteHeader(status)
	_, _ = io.WriteString(w, resp)
}

// apiError is DynamoDB's JSON error body.
func apiError(status int, code, msg string) (int, string) {
	return status, `{"__type":"com.amazonaws.dynamodb.v20120810#` + code + `","message":"` + msg + `"}`
}

// sent returns the requests of one operation received so far.
func (f *fakeServer) sent(op string) []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]map[string]any(nil), f.requests[op]...)
}

// open opens the driver against the fake with extra properties.
func (f *fakeServer) open(t *testing.T, props ...string) *dynamodb.DB {
	t.Helper()
	p := map[string]string{"dynamodb.endpoint": f.srv.URL, "dynamodb.maxbackoff": "1ms"}
	for i := 0; i+1 < len(props); i += 2 {
		p[props[i]] = props[i+1]
	}
	db, err := dynamodb.Open(context.Background(), driver.Params{Props: p, Workers: 1})
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Close() })
	return db.(*dynamodb.DB)
}

func session(t *testing.T, db driver.DB) driver.Session {
	t.Helper()
	s, err := db.Session(context.Background(), 0)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// counters returns a DB's counters by name.
func counters(db driver.CounterSource) map[string]float64 {
	m := map[string]float64{}
	for _, c := range db.Counters() {
		m[c.Name] = c.Value
	}
	return m
}
