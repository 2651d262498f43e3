/*
Copyright 2026 The applyset-operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package webhooks

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// The Secret's keys: those a kubernetes.io/tls Secret has, and the CA's.
const (
	caCertKey = "ca.crt"
	caKeyKey  = "ca.key"
	certKey   = "tls.crt"
	keyKey    = "tls.key"
)

const (
	// caLifetime and certLifetime are how long a new CA and serving
	// certificate are valid.
	caLifetime   = 10 * 365 * 24 * time.Hour
	certLifetime = 365 * 24 * time.Hour
	// renewBefore is how long before it expires a certificate is renewed:
	// far more than the kubelet takes to mount the new one.
	renewBefore = 90 * 24 * time.Hour
	// caName and caOrganization name the self-signed CA.
	caName         = "applyset-operator-ca"
	caOrganization = "applyset-operator"
)

// valid reports whether data holds a CA and a serving certificate it
// signed, for every name of dnsNames, both valid beyond renewBefore from now.
func valid(data map[string][]byte, dnsNames []string, now time.Time) bool {
	ca, _, err := parsePair(data[caCertKey], data[caKeyKey])
	if err != nil || !ca.IsCA || now.Add(renewBefore).After(ca.NotAfter) {
		return false
	}
	cert, _, err := parsePair(data[certKey], data[keyKey])
	if err != nil || now.Add(renewBefore).After(cert.NotAfter) {
		return false
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	for _, name := range dnsNames {
		if _, err := cert.Verify(x509.VerifyOptions{DNSName: name, Roots: roots, CurrentTime: now,
			KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err != nil {
			return false
		}
	}
	return true
}

// issue returns the Secret's data with a new serving certificate for
// dnsNames, signed by its CA while that stays valid beyond renewBefore, else
// by a new one.
func issue(data map[string][]byte, dnsNames []string, now time.Time) (map[string][]byte, error) {
	ca, caKey, err := parsePair(data[caCertKey], data[caKeyKey])
	out := map[string][]byte{caCertKey: data[caCertKey], caKeyKey: data[caKeyKey]}
	if err != nil || !ca.IsCA || now.Add(renewBefore).After(ca.NotAfter) {
		if ca, caKey, out[caCertKey], out[caKeyKey], err = newCA(now); err != nil {
			return nil, err
		}
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generating the webhook server's key: %w", err)
	}
	template := &x509.Certificate{
		SerialNumber: serial(), Subject: pkix.Name{CommonName: dnsNames[0]}, DNSNames: dnsNames,
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(certLifetime),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, template, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("signing the webhook server's certificate: %w", err)
	}
	if out[certKey], out[keyKey], err = encode(der, key); err != nil {
		return nil, err
	}
	return out, nil
}

// newCA makes a self-signed CA.
func newCA(now time.Time) (*x509.Certificate, crypto.Signer, []byte, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("generating the webhook CA's key: %w", err)
	}
	template := &x509.Certificate{
		SerialNumber: serial(), Subject: pkix.Name{CommonName: caName, Organization: []string{caOrganization}},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(caLifetime),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &key.PublicKey, key)
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("signing the webhook CA: %w", err)
	}
	ca, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	certPEM, keyPEM, err := encode(der, key)
	return ca, key, certPEM, keyPEM, err
}

// parsePair parses a PEM certificate and its private key.
func parsePair(certPEM, keyPEM []byte) (*x509.Certificate, crypto.Signer, error) {
	if len(certPEM) == 0 || len(keyPEM) == 0 {
		return nil, nil, errNoCA
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, nil, err
	}
	signer, ok := pair.PrivateKey.(crypto.Signer)
	if !ok {
		return nil, nil, fmt.Errorf("a private key of type %T cannot sign", pair.PrivateKey)
	}
	return pair.Leaf, signer, nil
}

func encode(der []byte, key *ecdsa.PrivateKey) (certPEM, keyPEM []byte, _ error) {
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), nil
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		panic(err) // crypto/rand does not fail
	}
	return n
}

func metaOf(key types.NamespacedName) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}
}
