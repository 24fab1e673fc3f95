package cli

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/internal/testenv"
)

// TestSecretsCQL gives the CQL driver a marker password under the
// driver's names and YCSB's. The test Cassandra asks for no login, so
// those runs show only that a working run never echoes the password; a
// stand-in server that demands one, and repeats the password it refuses
// in its error as a careless server might, covers the refusal, and a key
// file covers TLS.
func TestSecretsCQL(t *testing.T) {
	addr := testenv.Addr(t, "DBARENA_TEST_CASSANDRA")
	const (
		pw     = "Mk7cqMarker31"
		wrong  = "Mk7cqMarker32"
		inFile = "Mk7cqMarker33"
	)
	host, port, err := net.SplitHostPort(addr)
	require.NoError(t, err)
	fake := newCQLAuthServer(t)
	key := keyFile(t, "not a key: "+inFile)
	common := []string{"cql.keyspace=dbarena_secret", "table=secret_leak", "cql.connect.timeout=5s"}
	requireNoLeak(t, "cql", common, []string{pw, wrong, inFile}, []secretCase{
		{name: "username and password", props: []string{"cql.hosts=" + host, "cql.port=" + port, "cql.username=bench", "cql.password=" + pw}},
		{name: "YCSB names from env", props: []string{"hosts=" + host, "port=" + port, "cassandra.username=bench",
			"cassandra.password=" + envRef("DBARENA_TEST_SECRET_CQ")}, env: map[string]string{"DBARENA_TEST_SECRET_CQ": pw}},
		{name: "refused login", props: []string{"cql.hosts=" + fake.addr, "cql.username=bench", "cql.password=" + wrong}, fail: "refused the login"},
		{name: "key file", props: []string{"cql.hosts=" + host, "cql.port=" + port, "cql.username=bench", "cql.password=" + pw,
			"cql.tls.cert=" + key, "cql.tls.key=" + key}, fail: "cql.tls.key"},
	})
	require.Contains(t, fake.passwords(), wrong, "the stand-in server was sent the password")
}

// cqlAuthServer speaks just enough of the CQL native protocol (v4) to
// demand a PasswordAuthenticator login and refuse it, quoting the
// password it was sent.
type cqlAuthServer struct {
	addr string
	mu   sync.Mutex
	got  []string
}

func newCQLAuthServer(t *testing.T) *cqlAuthServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := &cqlAuthServer{addr: ln.Addr().String()}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				s.serve(c)
			}()
		}
	}()
	return s
}

func (s *cqlAuthServer) passwords() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.got...)
}

// CQL opcodes and the error codes used.
const (
	cqlError        = 0x00
	cqlStartup      = 0x01
	cqlAuthenticate = 0x03
	cqlOptions      = 0x05
	cqlSupported    = 0x06
	cqlAuthResponse = 0x0F

	cqlProtocolError  = 0x000A
	cqlBadCredentials = 0x0100
)

// serve answers one connection's frames until it closes.
func (s *cqlAuthServer) serve(c net.Conn) {
	for {
		var head [9]byte
		if _, err := io.ReadFull(c, head[:]); err != nil {
			return
		}
		body := make([]byte, binary.BigEndian.Uint32(head[5:]))
		if _, err := io.ReadFull(c, body); err != nil {
			return
		}
		version, stream, op := head[0]&0x7f, head[2:4], head[4]
		reply := func(op byte, b []byte) {
			out := append([]byte{0x80 | version, 0, stream[0], stream[1], op}, binary.BigEndian.AppendUint32(nil, uint32(len(b)))...)
			_, _ = c.Write(append(out, b...))
		}
		switch {
		case version != 4:
			// As Cassandra does: the driver then tries an older version.
			reply(cqlError, cqlErrorBody(cqlProtocolError, "Invalid or unsupported protocol version ("+strconv.Itoa(int(version))+"); supported versions are (4/v4)"))
		case op == cqlOptions:
			reply(cqlSupported, cqlStringMultimap(map[string][]string{"CQL_VERSION": {"3.4.7"}, "COMPRESSION": {}}))
		case op == cqlStartup:
			reply(cqlAuthenticate, cqlString("org.apache.cassandra.auth.PasswordAuthenticator"))
		case op == cqlAuthResponse:
			// The token is [int length] 0 user 0 password.
			parts := bytes.SplitN(body[min(4, len(body)):], []byte{0}, 3)
			user, pass := "", ""
			if len(parts) == 3 {
				user, pass = string(parts[1]), string(parts[2])
			}
			s.mu.Lock()
			s.got = append(s.got, pass)
			s.mu.Unlock()
			reply(cqlError, cqlErrorBody(cqlBadCredentials, "Provided username "+user+" and password "+pass+" are incorrect"))
		default:
			reply(cqlError, cqlErrorBody(cqlProtocolError, "unexpected opcode "+strconv.Itoa(int(op))))
		}
	}
}

func cqlString(s string) []byte {
	return append(binary.BigEndian.AppendUint16(nil, uint16(len(s))), s...)
}

func cqlErrorBody(code uint32, msg string) []byte {
	return append(binary.BigEndian.AppendUint32(nil, code), cqlString(msg)...)
}

func cqlStringMultimap(m map[string][]string) []byte {
	b := binary.BigEndian.AppendUint16(nil, uint16(len(m)))
	for k, vs := range m {
		b = append(b, cqlString(k)...)
		b = binary.BigEndian.AppendUint16(b, uint16(len(vs)))
		for _, v := range vs {
			b = append(b, cqlString(v)...)
		}
	}
	return b
}
