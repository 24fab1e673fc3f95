package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOneVoiceOnStderr: warnings read as dbarena's other messages do,
// --log-format json turns them into records a program parses, and a
// client library's own log lines do not reach the terminal raw.
func TestOneVoiceOnStderr(t *testing.T) {
	args := []string{"ycsb", "load", "memory", "-p", "recordcount=10", "-p", "exporterr=x", "-q"}
	code, _, errs := run(t, context.Background(), args...)
	require.Equal(t, ExitOK, code, errs)
	require.Contains(t, errs, `dbarena: warning: `, "a warning in the human voice")
	require.NotContains(t, errs, "level=")
	require.NotContains(t, errs, "msg=")

	code, _, errs = run(t, context.Background(), append([]string{"--log-format", "json"}, args...)...)
	require.Equal(t, ExitOK, code, errs)
	var warned bool
	for _, line := range strings.Split(strings.TrimSpace(errs), "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec["level"] == "WARN" {
			warned = true
		}
	}
	require.True(t, warned, "a JSON record with level WARN: %s", errs)

	code, _, errs = run(t, context.Background(), "--log-format", "xml", "version")
	require.Equal(t, ExitUsage, code)
	require.Contains(t, errs, `--log-format "xml": want text or json`)

	// Nothing listens on port 1: no client library speaks in its own
	// voice (go-redis's pool printed "redis: 2026/11/25 ... pool.go:770:
	// ..."); the user sees the driver's error, once.
	code, _, errs = run(t, context.Background(), "ycsb", "load", "redis", "-p", "redis.addr=127.0.0.1:1", "-p", "recordcount=10",
		"-p", "redis.connect.timeout=1s", "-q")
	require.Equal(t, ExitFailure, code)
	require.NotContains(t, errs, "pool.go")
	require.Equal(t, 1, strings.Count(errs, "connection refused"), errs)
}
