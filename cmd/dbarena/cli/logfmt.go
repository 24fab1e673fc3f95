package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"

	"github.com/spf13/cobra"
)

// Log formats of --log-format.
const (
	logText = "text"
	logJSON = "json"
)

// addLogFlags gives every command --log-format and --log-level, and
// builds st.Logger from them before the command runs: one human voice on
// a terminal, structured records for a program that reads them.
func addLogFlags(root *cobra.Command, st *State) {
	var format, level string
	root.PersistentFlags().StringVar(&format, "log-format", logText, "messages and warnings on stderr: text (for people) or json (one object per line, for programs)")
	root.PersistentFlags().StringVar(&level, "log-level", "info", "the least severe messages shown: debug, info, warn or error")
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		var lv slog.Level
		if err := lv.UnmarshalText([]byte(level)); err != nil {
			return usageError(fmt.Errorf("--log-level %q: want debug, info, warn or error", level))
		}
		var h slog.Handler
		switch format {
		case logText:
			h = newHumanHandler(st.Stderr, lv)
		case logJSON:
			h = slog.NewJSONHandler(st.Stderr, &slog.HandlerOptions{Level: lv})
			if j, ok := st.Stderr.(*jsonLines); ok {
				j.level.Set(lv)
			}
		default:
			return usageError(fmt.Errorf("--log-format %q: want text or json", format))
		}
		st.Logger = slog.New(st.Secrets.Handler(h))
		return nil
	}
}

// humanHandler writes records as dbarena's other messages read:
// "dbarena: warning: message (key value, key value)". Debug and info
// records have no level word; the attributes follow in brackets, in
// the order given.
type humanHandler struct {
	mu    *sync.Mutex
	w     io.Writer
	level slog.Leveler
	attrs []slog.Attr
	group string
}

func newHumanHandler(w io.Writer, level slog.Leveler) *humanHandler {
	return &humanHandler{mu: &sync.Mutex{}, w: w, level: level}
}

// Enabled implements slog.Handler.
func (h *humanHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level.Level() }

// Handle implements slog.Handler.
func (h *humanHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString("dbarena: ")
	switch {
	case r.Level >= slog.LevelError:
		b.WriteString("error: ")
	case r.Level >= slog.LevelWarn:
		b.WriteString("warning: ")
	case r.Level < slog.LevelInfo:
		b.WriteString("debug: ")
	}
	b.WriteString(r.Message)
	var parts []string
	add := func(a slog.Attr) {
		if a.Equal(slog.Attr{}) {
			return
		}
		key := a.Key
		if h.group != "" {
			key = h.group + "." + key
		}
		parts = append(parts, key+" "+a.Value.Resolve().String())
	}
	for _, a := range h.attrs {
		add(a)
	}
	r.Attrs(func(a slog.Attr) bool { add(a); return true })
	if len(parts) > 0 {
		b.WriteString(" (" + strings.Join(parts, ", ") + ")")
	}
	b.WriteByte('\n')
	h.mu.Lock()
	defer h.mu.Unlock()
	_, err := io.WriteString(h.w, b.String())
	return err
}

// WithAttrs implements slog.Handler.
func (h *humanHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	c := *h
	c.attrs = append(append([]slog.Attr(nil), h.attrs...), attrs...)
	return &c
}

// WithGroup implements slog.Handler: keys are prefixed with the group.
func (h *humanHandler) WithGroup(name string) slog.Handler {
	c := *h
	if c.group != "" {
		name = c.group + "." + name
	}
	c.group = name
	return &c
}

// jsonLines is stderr under --log-format json: a line written to it
// straight (a progress or result line, a warning printed rather than
// logged, an error) becomes a record as the JSON handler writes them,
// with the level its words say ("warning: ", "error: ") and dbarena's
// "dbarena: " prefix dropped; a line that is a JSON object already (a
// logged record) passes as it is. So every line of stderr is JSON.
type jsonLines struct {
	mu  sync.Mutex
	w   io.Writer
	log *slog.Logger
	buf []byte
	// level is --log-level's, once the flags are read: a printed line
	// less severe is left out, as a logged record is.
	level slog.LevelVar
}

func newJSONLines(w io.Writer) *jsonLines {
	j := &jsonLines{w: w}
	j.log = slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: &j.level}))
	return j
}

// Write implements io.Writer: whole lines go out, a partial one waits
// for its end (Flush).
func (j *jsonLines) Write(p []byte) (int, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.buf = append(j.buf, p...)
	for {
		i := bytes.IndexByte(j.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := string(j.buf[:i])
		j.buf = j.buf[i+1:]
		if err := j.emit(line); err != nil {
			return len(p), err
		}
	}
}

// Flush writes a last line that did not end.
func (j *jsonLines) Flush() {
	j.mu.Lock()
	defer j.mu.Unlock()
	if len(j.buf) > 0 {
		_ = j.emit(string(j.buf))
		j.buf = nil
	}
}

func (j *jsonLines) emit(line string) error {
	// A progress line rewrites itself with carriage returns: its last
	// state is the line.
	if i := strings.LastIndexByte(line, '\r'); i >= 0 {
		line = line[i+1:]
	}
	if strings.TrimSpace(line) == "" {
		return nil
	}
	if strings.HasPrefix(line, "{") && json.Valid([]byte(line)) {
		_, err := io.WriteString(j.w, line+"\n")
		return err
	}
	msg := strings.TrimPrefix(line, "dbarena: ")
	level := slog.LevelInfo
	switch {
	case strings.HasPrefix(strings.TrimSpace(msg), "error: "):
		level, msg = slog.LevelError, strings.TrimPrefix(strings.TrimSpace(msg), "error: ")
	case strings.HasPrefix(strings.TrimSpace(msg), "warning: "):
		level, msg = slog.LevelWarn, strings.TrimPrefix(strings.TrimSpace(msg), "warning: ")
	}
	j.log.Log(context.Background(), level, msg)
	return nil
}

// wantsJSONLog reports whether the command line asks for --log-format
// json, read before the flags are parsed: an error in parsing them is
// then JSON too.
func wantsJSONLog(args []string) bool {
	for i, a := range args {
		if a == "--" {
			return false
		}
		if a == "--log-format=json" || a == "--log-format" && i+1 < len(args) && args[i+1] == logJSON {
			return true
		}
	}
	return false
}
