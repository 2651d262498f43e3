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

package main

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestSettlingLogger(t *testing.T) {
	conflict := apierrors.NewConflict(schema.GroupResource{Resource: "secrets"}, "cert", errors.New("the object has been modified"))
	notWellFormed := errors.New("Cert secret is not well-formed, missing ca.crt")
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, "cert", errors.New("no"))
	rotator := func(l logr.Logger) logr.Logger { return l.WithName("cert-rotation") }
	reconciles := func(l logr.Logger) logr.Logger { return l.WithValues("controller", "cert-rotator") }
	other := func(l logr.Logger) logr.Logger { return l.WithName("applyset").WithValues("controller", "applyset") }
	tests := []struct {
		name      string
		logger    func(logr.Logger) logr.Logger
		msg       string
		err       error
		settled   bool
		wantError bool
	}{
		{"the rotator's writers conflicting", rotator, "could not refresh CA and server certs", conflict, false, false},
		{"the Secret read back before the cache has it", rotator, settlingMessages[0], notWellFormed, false, false},
		{"a configuration the registrars have not written yet", rotator, settlingMessages[1], apierrors.NewNotFound(schema.GroupResource{}, "c"), false, false},
		{"a conflict of the rotator's reconcile", reconciles, "Reconciler error", conflict, false, false},
		{"any other error of the rotator", rotator, "could not refresh CA and server certs", forbidden, false, true},
		{"a settling error after the deadline", rotator, "could not refresh CA and server certs", conflict, true, true},
		{"a conflict of another logger", other, "Reconciler error", conflict, false, true},
		{"a settling message of another logger", other, settlingMessages[0], notWellFormed, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var lines []string
			base := funcr.New(func(prefix, args string) { lines = append(lines, prefix+" "+args) }, funcr.Options{Verbosity: 1})
			window := &settleWindow{}
			window.openFrom(time.Now())
			if tt.settled {
				window.openFrom(time.Now().Add(-certSettleTime - time.Second))
			}
			tt.logger(settlingLogger(base, window)).Error(tt.err, tt.msg)

			if len(lines) != 1 {
				t.Fatalf("logged %d lines, want 1: %q", len(lines), lines)
			}
			if isError := strings.Contains(lines[0], `"error"=`) && !strings.Contains(lines[0], "retried while"); isError != tt.wantError {
				t.Errorf("logged %q; want an error: %v", lines[0], tt.wantError)
			}
			if !strings.Contains(lines[0], strings.ReplaceAll(tt.err.Error(), `"`, `\"`)) {
				t.Errorf("logged %q, which leaves out the error %q", lines[0], tt.err)
			}
		})
	}
}

// The window opens when the rotator is set up, however long the process ran
// before: a suite sets up managers minutes apart, and so may an operator.
func TestSettleWindowOpensWithTheRotator(t *testing.T) {
	now := time.Now()
	w := &settleWindow{}
	if w.open(now) {
		t.Error("open before any rotator was set up")
	}
	w.openFrom(now.Add(-certSettleTime - time.Second))
	if w.open(now) {
		t.Error("open a settle time after the rotator was set up")
	}
	w.openFrom(now)
	if !w.open(now.Add(certSettleTime - time.Second)) {
		t.Error("closed within a settle time of a rotator set up later")
	}
}
