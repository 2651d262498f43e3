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
	"maps"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

var testNames = []string{"svc.ns.svc", "svc.ns.svc.cluster.local"}

func TestIssueAndRenew(t *testing.T) {
	now := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	first, err := issue(nil, testNames, now)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		data   map[string][]byte
		at     time.Time
		names  []string
		valid  bool
		sameCA bool // when renewed
	}{
		{name: "an empty Secret", at: now, names: testNames},
		{name: "just issued", data: first, at: now, names: testNames, valid: true},
		{name: "another Service's name", data: first, at: now, names: []string{"other.ns.svc"}, sameCA: true},
		{name: "the serving certificate near its end: renewed under the same CA", data: first,
			at: now.Add(certLifetime - renewBefore + time.Hour), names: testNames, sameCA: true},
		{name: "the CA near its end: a new CA", data: first, at: now.Add(caLifetime - renewBefore + time.Hour), names: testNames},
		{name: "a key that is not the certificate's", data: with(first, keyKey, mustIssue(t, now)[keyKey]), at: now, names: testNames, sameCA: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := valid(tt.data, tt.names, tt.at); got != tt.valid {
				t.Fatalf("valid = %t, want %t", got, tt.valid)
			}
			if tt.valid {
				return
			}
			renewed, err := issue(tt.data, tt.names, tt.at)
			if err != nil {
				t.Fatal(err)
			}
			if !valid(renewed, tt.names, tt.at) {
				t.Error("what issue wrote is not valid")
			}
			if same := bytes.Equal(renewed[caCertKey], tt.data[caCertKey]); same != tt.sameCA {
				t.Errorf("same CA = %t, want %t", same, tt.sameCA)
			}
		})
	}
}

func mustIssue(t *testing.T, now time.Time) map[string][]byte {
	t.Helper()
	data, err := issue(nil, testNames, now)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func with(data map[string][]byte, key string, value []byte) map[string][]byte {
	out := maps.Clone(data)
	out[key] = value
	return out
}

// Two replicas filling the empty Secret of a fresh install at once: one
// write goes through, the other is refused with a Conflict and takes the
// certificate written, and both publish the same CA.
func TestCertsOneWriterAmongReplicas(t *testing.T) {
	key := types.NamespacedName{Namespace: "ops", Name: "cert"}
	secret := &corev1.Secret{ObjectMeta: metaOf(key)}
	clock := clocktesting.NewFakePassiveClock(time.Now())
	var a, b *Certs
	updates := 0
	c := fake.NewClientBuilder().WithObjects(secret).WithInterceptorFuncs(interceptor.Funcs{
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			updates++
			if updates == 1 {
				// b reads and writes between a's read and a's write.
				if err := b.ensure(ctx); err != nil {
					return err
				}
			}
			return c.Update(ctx, obj, opts...)
		},
	}).Build()
	a = &Certs{Secret: key, DNSNames: testNames, Client: c, Reader: c, FieldManager: "certs", Clock: clock}
	b = &Certs{Secret: key, DNSNames: testNames, Client: c, Reader: c, FieldManager: "certs", Clock: clock}
	if err := a.ensure(context.Background()); err != nil {
		t.Fatal(err)
	}
	if updates != 2 {
		t.Errorf("%d writes, want 2: b's, and a's refused", updates)
	}
	stored := &corev1.Secret{}
	if err := c.Get(context.Background(), key, stored); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.CABundle(), stored.Data[caCertKey]) || !bytes.Equal(b.CABundle(), stored.Data[caCertKey]) {
		t.Error("the replicas do not both publish the CA stored")
	}
	select {
	case <-a.Changes():
	default:
		t.Error("a subscriber of a CA already known was not told")
	}
}
