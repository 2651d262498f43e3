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
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

// Certs keeps a self-signed CA and the webhook server's certificate in one
// Secret, and is its one writer: every replica runs it, each write carries
// the version of the Secret it read, and a replica that loses the race takes
// the certificate the winner wrote. The registrars put its CA into the
// entries they apply (Endpoint.Certs), so that a webhook's caBundle has one
// writer too, and no write of either is ever refused for another's.
type Certs struct {
	// Secret holds ca.crt, ca.key, tls.crt and tls.key; the install ships it.
	Secret types.NamespacedName
	// DNSNames the serving certificate is for: the Service's.
	DNSNames []string
	// CertDir is where the Secret is mounted: the server starts once the
	// files are there (Ready).
	CertDir string
	// Client writes the Secret, Reader reads it uncached.
	Client client.Client
	Reader client.Reader
	// FieldManager names the writer of the Secret.
	FieldManager string
	// Clock judges the certificates' validity; nil is the system's clock.
	Clock clock.PassiveClock
	// Every is how often the certificates are checked; 0 is an hour.
	Every time.Duration

	mu          sync.Mutex
	ca          []byte
	subscribers []chan event.GenericEvent
	ready       chan struct{}
	readyOnce   sync.Once
}

// NeedLeaderElection is false: every replica serves the webhooks.
func (c *Certs) NeedLeaderElection() bool { return false }

// Start keeps the certificates valid until ctx ends.
func (c *Certs) Start(ctx context.Context) error {
	c.init()
	go c.awaitFiles(ctx)
	every := c.Every
	if every == 0 {
		every = time.Hour
	}
	wait := time.Duration(0)
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
		wait = every
		if err := c.ensure(ctx); err != nil && ctx.Err() == nil {
			log.FromContext(ctx).Error(err, "Keeping the webhook certificate valid; trying again", "secret", c.Secret.String())
			wait = 5 * time.Second
		}
	}
}

// Ready is closed once the CA is known and the certificate files are in
// CertDir.
func (c *Certs) Ready() <-chan struct{} {
	c.init()
	return c.ready
}

// CABundle is the CA the serving certificate chains to; nil until known.
func (c *Certs) CABundle() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ca
}

// Changes tells, with one event, each time the CA changes, the first time
// included: a registrar watches it to write the new caBundle.
func (c *Certs) Changes() <-chan event.GenericEvent {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan event.GenericEvent, 1)
	c.subscribers = append(c.subscribers, ch)
	if c.ca != nil {
		ch <- event.GenericEvent{Object: c.secretObject()}
	}
	return ch
}

func (c *Certs) init() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ready == nil {
		c.ready = make(chan struct{})
	}
}

// ensure reads the Secret and, unless its certificates stay valid beyond
// renewBefore, writes new ones on the version it read. A Conflict means
// another replica wrote first: its certificates are read and used.
func (c *Certs) ensure(ctx context.Context) error {
	for range 5 {
		secret := &corev1.Secret{}
		if err := c.Reader.Get(ctx, c.Secret, secret); err != nil {
			return fmt.Errorf("reading the webhook certificate Secret %s: %w", c.Secret, err)
		}
		now := c.now()
		if valid(secret.Data, c.DNSNames, now) {
			c.publish(secret.Data[caCertKey])
			return nil
		}
		data, err := issue(secret.Data, c.DNSNames, now)
		if err != nil {
			return err
		}
		secret.Data = data
		err = c.Client.Update(ctx, secret, client.FieldOwner(c.FieldManager))
		if err == nil {
			log.FromContext(ctx).Info("Wrote a new webhook certificate", "secret", c.Secret.String(), "dnsNames", c.DNSNames)
			c.publish(data[caCertKey])
			return nil
		}
		if !apierrors.IsConflict(err) {
			return fmt.Errorf("writing the webhook certificate Secret %s: %w", c.Secret, err)
		}
		log.FromContext(ctx).V(1).Info("Another replica wrote the webhook certificate first; reading it", "secret", c.Secret.String())
	}
	return fmt.Errorf("the webhook certificate Secret %s changed under each of 5 writes", c.Secret)
}

// publish makes ca the CA the registrars write, and tells them when it changed.
func (c *Certs) publish(ca []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if bytes.Equal(c.ca, ca) {
		return
	}
	c.ca = bytes.Clone(ca)
	for _, ch := range c.subscribers {
		select {
		case ch <- event.GenericEvent{Object: c.secretObject()}:
		default: // one is waiting already
		}
	}
}

func (c *Certs) secretObject() client.Object {
	return &corev1.Secret{ObjectMeta: metaOf(c.Secret)}
}

// awaitFiles closes ready once the CA is known and the mounted files exist:
// the kubelet copies a Secret's change into its volume a minute or so
// later, and the server cannot start before.
func (c *Certs) awaitFiles(ctx context.Context) {
	for {
		if c.CABundle() != nil && c.filesPresent() {
			c.readyOnce.Do(func() { close(c.ready) })
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}

func (c *Certs) filesPresent() bool {
	for _, name := range []string{certKey, keyKey} {
		if _, err := os.Stat(filepath.Join(c.CertDir, name)); err != nil {
			return false
		}
	}
	return true
}

func (c *Certs) now() time.Time {
	if c.Clock == nil {
		return time.Now()
	}
	return c.Clock.Now()
}

// errNoCA says a Secret holds no CA of its own to sign with.
var errNoCA = errors.New("no CA in the Secret")
