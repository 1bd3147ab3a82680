package serve

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"os"
)

// TLSConfig is the service's TLS configuration from PEM files: its
// certificate and key and, if clientCA is not empty, the CAs whose client
// certificates it requires (mTLS; the bearer token is required as well).
func TLSConfig(certFile, keyFile, clientCA string) (*tls.Config, error) {
	pair, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, err
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
	if clientCA != "" {
		pem, err := os.ReadFile(clientCA)
		if err != nil {
			return nil, err
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, errors.New(clientCA + ": no certificates")
		}
		cfg.ClientCAs = pool
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
	}
	return cfg, nil
}
