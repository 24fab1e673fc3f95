package driver

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"

	"github.com/dbarena/dbarena/internal/bounds"
)

// TLS reads the TLS properties shared by the drivers whose protocol has
// no URL to carry them (CQL, Redis): PREFIX.tls turns TLS on (also
// implied by any other of them), PREFIX.tls.ca is a PEM file of the
// certificate authorities to trust instead of the system's,
// PREFIX.tls.cert and PREFIX.tls.key a client certificate and its key,
// PREFIX.tls.server_name the name to verify when it differs from the
// host dialled, and PREFIX.tls.insecure skips verification (for a test
// server with a self-signed certificate only). It returns nil when TLS
// is off.
func (p Props) TLS() (*tls.Config, error) {
	on, err := p.Bool("tls", false)
	if err != nil {
		return nil, err
	}
	insecure, err := p.Bool("tls.insecure", false)
	if err != nil {
		return nil, err
	}
	ca, cert, key, name := p.String("tls.ca", ""), p.String("tls.cert", ""), p.String("tls.key", ""), p.String("tls.server_name", "")
	if !on && !insecure && ca == "" && cert == "" && key == "" && name == "" {
		return nil, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: name, InsecureSkipVerify: insecure} //nolint:gosec // only when the user sets tls.insecure
	if ca != "" {
		pem, err := bounds.ReadFile(ca, bounds.MaxFileBytes)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.Key("tls.ca"), err)
		}
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s=%s: no PEM certificate in the file", p.Key("tls.ca"), ca)
		}
	}
	if (cert == "") != (key == "") {
		return nil, errors.New(p.Key("tls.cert") + " and " + p.Key("tls.key") + ": give both (a client certificate and its key) or neither")
	}
	if cert != "" {
		// Read with a cap rather than with tls.LoadX509KeyPair, which
		// reads /dev/zero until the memory runs out.
		certPEM, err := bounds.ReadFile(cert, bounds.MaxFileBytes)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.Key("tls.cert"), err)
		}
		keyPEM, err := bounds.ReadFile(key, bounds.MaxFileBytes)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p.Key("tls.key"), err)
		}
		pair, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return nil, fmt.Errorf("%s, %s: %w", p.Key("tls.cert"), p.Key("tls.key"), err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return cfg, nil
}
