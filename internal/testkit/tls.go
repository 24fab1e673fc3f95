package testkit

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TLSFiles are PEM files for a test server with TLS: a certificate
// authority, and a server certificate it signed for 127.0.0.1 and
// localhost with its key.
type TLSFiles struct {
	CA, Cert, Key string
}

// NewTLSFiles writes a fresh authority and server certificate into a
// temporary directory, valid for an hour.
func NewTLSFiles(tb testing.TB) TLSFiles {
	tb.Helper()
	dir := tb.TempDir()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(tb, err)
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "dbarena test CA"},
		NotBefore: now.Add(-time.Minute), NotAfter: now.Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	require.NoError(tb, err)
	ca, err := x509.ParseCertificate(caDER)
	require.NoError(tb, err)

	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(tb, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "localhost"},
		NotBefore: now.Add(-time.Minute), NotAfter: now.Add(time.Hour),
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	require.NoError(tb, err)
	keyDER, err := x509.MarshalECPrivateKey(key)
	require.NoError(tb, err)

	f := TLSFiles{CA: filepath.Join(dir, "ca.pem"), Cert: filepath.Join(dir, "server.pem"), Key: filepath.Join(dir, "server.key")}
	for path, block := range map[string]*pem.Block{
		f.CA:   {Type: "CERTIFICATE", Bytes: caDER},
		f.Cert: {Type: "CERTIFICATE", Bytes: der},
		f.Key:  {Type: "EC PRIVATE KEY", Bytes: keyDER},
	} {
		require.NoError(tb, os.WriteFile(path, pem.EncodeToMemory(block), 0o600))
	}
	return f
}
