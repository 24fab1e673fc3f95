package driver_test

import (
	"crypto/tls"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/dbarena/dbarena/driver"
	"github.com/dbarena/dbarena/internal/testkit"
)

func TestTLS(t *testing.T) {
	files := testkit.NewTLSFiles(t)
	cfg := func(m map[string]string) (*tls.Config, error) { return driver.NewProps("x", m).TLS() }

	c, err := cfg(nil)
	require.NoError(t, err)
	require.Nil(t, c, "off unless asked")

	c, err = cfg(map[string]string{"x.tls": "true"})
	require.NoError(t, err)
	require.NotNil(t, c)
	require.Nil(t, c.RootCAs, "the system's authorities")
	require.False(t, c.InsecureSkipVerify)

	c, err = cfg(map[string]string{"x.tls.ca": files.CA, "x.tls.cert": files.Cert, "x.tls.key": files.Key, "x.tls.server_name": "db"})
	require.NoError(t, err, "any tls property turns TLS on")
	require.NotNil(t, c.RootCAs)
	require.Len(t, c.Certificates, 1)
	require.Equal(t, "db", c.ServerName)

	notPEM := filepath.Join(t.TempDir(), "ca.txt")
	require.NoError(t, os.WriteFile(notPEM, []byte("hello"), 0o600))
	for props, want := range map[string]map[string]string{
		`x.tls="maybe": want true or false`:                                 {"x.tls": "maybe"},
		"x.tls.ca: open /no/such.pem":                                       {"x.tls.ca": "/no/such.pem"},
		"x.tls.ca=" + notPEM + ": no PEM certificate":                       {"x.tls.ca": notPEM},
		"x.tls.cert and x.tls.key: give both":                               {"x.tls.cert": files.Cert},
		"x.tls.cert, x.tls.key: tls: found a certificate rather than a key": {"x.tls.cert": files.CA, "x.tls.key": files.CA},
		"x.tls.ca: /dev/zero: larger than the 64 MiB limit":                 {"x.tls.ca": "/dev/zero"},
		"x.tls.key: /dev/zero: larger than the 64 MiB limit":                {"x.tls.cert": files.Cert, "x.tls.key": "/dev/zero"},
	} {
		_, err := cfg(want)
		require.ErrorContains(t, err, props)
	}
}
