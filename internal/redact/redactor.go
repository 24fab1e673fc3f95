package redact

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// MinLen is the shortest secret a Redactor searches for in text. A
// shorter one would match ordinary words and numbers all over the
// output; it is still masked where its place is known (URL, Props).
const MinLen = 4

// Redactor hides known secret values wherever they appear in text: error
// messages, log records, output streams. It learns the values as they are
// resolved (Add, AddProps) and is safe for concurrent use. A nil
// *Redactor hides nothing, so callers need no check.
type Redactor struct {
	mu sync.RWMutex
	// secrets holds every value and its escaped spellings, longest
	// first, so that a secret holding another is replaced whole.
	secrets []string
}

// New returns a Redactor that hides values.
func New(values ...string) *Redactor {
	r := &Redactor{}
	r.Add(values...)
	return r
}

// Add learns secret values. Each is also hidden as a database client or
// encoder may print it: quoted by %q or JSON, escaped in a URL. Values
// shorter than MinLen are ignored.
func (r *Redactor) Add(values ...string) {
	if r == nil {
		return
	}
	var forms []string
	for _, v := range values {
		if len(v) < MinLen {
			continue
		}
		q := strconv.Quote(v)
		j, _ := json.Marshal(v)
		user := url.UserPassword("", v).String() // ":escaped"
		forms = append(forms, v, q[1:len(q)-1], string(j[1:len(j)-1]), url.QueryEscape(v), url.PathEscape(v), user[1:])
	}
	if len(forms) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, f := range forms {
		if !slices.Contains(r.secrets, f) {
			r.secrets = append(r.secrets, f)
		}
	}
	slices.SortFunc(r.secrets, func(a, b string) int { return len(b) - len(a) })
}

// AddProps learns the secrets of properties: the values of secret-named
// keys (SecretKey) and the passwords of connection strings in any value,
// both as written and as the client decodes them.
func (r *Redactor) AddProps(props map[string]string) {
	if r == nil {
		return
	}
	for k, v := range props {
		if SecretKey(k) {
			r.Add(v)
		}
		for _, s := range credentials(v) {
			r.Add(s.value, v[s.start:s.end])
		}
	}
}

// String returns s with every known secret replaced by Mask.
func (r *Redactor) String(s string) string {
	if r == nil {
		return s
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, sec := range r.secrets {
		if strings.Contains(s, sec) {
			s = strings.ReplaceAll(s, sec, Mask)
		}
	}
	return s
}

// Error returns err with its message redacted. The result wraps err, so
// errors.Is and errors.As see through it; err itself is returned when its
// message holds no secret.
func (r *Redactor) Error(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if clean := r.String(msg); clean != msg {
		return &redactedError{msg: clean, err: err}
	}
	return err
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// Writer returns a writer that redacts each Write before passing it to w.
// A secret split across two writes is not seen: every writer of ours
// writes whole lines or messages (fmt.Fprintf, slog), which is what this
// relies on.
func (r *Redactor) Writer(w io.Writer) io.Writer {
	if r == nil {
		return w
	}
	return &writer{r: r, w: w}
}

type writer struct {
	r *Redactor
	w io.Writer
}

func (w *writer) Write(p []byte) (int, error) {
	s := string(p)
	clean := w.r.String(s)
	if clean == s {
		return w.w.Write(p)
	}
	if _, err := io.WriteString(w.w, clean); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Handler returns a slog handler that redacts the message and every
// attribute (strings, errors, anything printed with %v) of a record before
// h handles it.
func (r *Redactor) Handler(h slog.Handler) slog.Handler {
	if r == nil {
		return h
	}
	return &handler{r: r, h: h}
}

type handler struct {
	r *Redactor
	h slog.Handler
}

func (h *handler) Enabled(ctx context.Context, l slog.Level) bool { return h.h.Enabled(ctx, l) }

func (h *handler) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, h.r.String(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.h.Handle(ctx, out)
}

func (h *handler) WithAttrs(as []slog.Attr) slog.Handler {
	clean := make([]slog.Attr, len(as))
	for i, a := range as {
		clean[i] = h.attr(a)
	}
	return &handler{r: h.r, h: h.h.WithAttrs(clean)}
}

func (h *handler) WithGroup(name string) slog.Handler {
	return &handler{r: h.r, h: h.h.WithGroup(name)}
}

// attr redacts one attribute; a value other than a string is printed
// with %v and replaced by its redacted text only when that hid something.
func (h *handler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, h.r.String(v.String()))
	case slog.KindGroup:
		g := v.Group()
		clean := make([]any, len(g))
		for i, x := range g {
			clean[i] = h.attr(x)
		}
		return slog.Group(a.Key, clean...)
	case slog.KindAny:
		s := fmt.Sprint(v.Any())
		if clean := h.r.String(s); clean != s {
			return slog.String(a.Key, clean)
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
