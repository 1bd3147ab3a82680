package serve

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// issue makes a certificate signed by parent (self-signed when parent is
// nil) and writes it and its key as PEM files in dir.
func issue(t *testing.T, dir, name string, parent *x509.Certificate, parentKey *ecdsa.PrivateKey, ca bool) (*x509.Certificate, *ecdsa.PrivateKey, string, string) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}}
	if ca {
		tmpl.IsCA, tmpl.BasicConstraintsValid, tmpl.KeyUsage = true, true, x509.KeyUsageCertSign
	}
	signer, signerKey := tmpl, key
	if parent != nil {
		signer, signerKey = parent, parentKey
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, signer, &key.PublicKey, signerKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	kder, _ := x509.MarshalECPrivateKey(key)
	certFile, keyFile := filepath.Join(dir, name+".crt"), filepath.Join(dir, name+".key")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600)
	return cert, key, certFile, keyFile
}

// TestMutualTLS: with a client CA, a client without a certificate from it
// cannot connect; one with a certificate still needs its bearer token.
func TestMutualTLS(t *testing.T) {
	e := newEnv(t, nil)
	dir := t.TempDir()
	ca, caKey, caFile, _ := issue(t, dir, "ca", nil, nil, true)
	_, _, srvCert, srvKey := issue(t, dir, "server", ca, caKey, false)
	_, _, cliCert, cliKey := issue(t, dir, "client", ca, caKey, false)
	_, _, strangerCert, strangerKey := issue(t, dir, "stranger", nil, nil, false)
	cfg, err := TLSConfig(srvCert, srvKey, caFile)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := netListen()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, e.srv, &ServeOptions{TLS: cfg}) }()
	defer func() { cancel(); <-done }()
	pool := x509.NewCertPool()
	pool.AddCert(ca)
	client := func(certFile, keyFile string) *http.Client {
		tc := &tls.Config{RootCAs: pool}
		if certFile != "" {
			pair, err := tls.LoadX509KeyPair(certFile, keyFile)
			if err != nil {
				t.Fatal(err)
			}
			tc.Certificates = []tls.Certificate{pair}
		}
		return &http.Client{Transport: &http.Transport{TLSClientConfig: tc}, Timeout: 5 * time.Second}
	}
	url := "https://" + ln.Addr().String() + "/v1/decide"
	post := func(c *http.Client, token string) (int, error) {
		req, _ := http.NewRequest("POST", url, strings.NewReader(`{"tool":"Bash","input":{"command":"npm run test"}}`))
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := c.Do(req)
		if err != nil {
			return 0, err
		}
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	if _, err := post(client("", ""), e.agent); err == nil {
		t.Fatal("a client without a certificate connected")
	}
	if _, err := post(client(strangerCert, strangerKey), e.agent); err == nil {
		t.Fatal("a client with a certificate from another CA connected")
	}
	if code, err := post(client(cliCert, cliKey), ""); err != nil || code != 401 {
		t.Fatalf("certificate without a token: %d %v", code, err)
	}
	if code, err := post(client(cliCert, cliKey), e.agent); err != nil || code != 200 {
		t.Fatalf("certificate and token: %d %v", code, err)
	}
}
