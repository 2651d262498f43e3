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
	"slices"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// certSettleTime bounds how long after the certificate rotator is set up
// its settling errors are logged quietly.
const certSettleTime = time.Minute

// settleWindow is until when the rotator's settling errors are logged
// quietly: certSettleTime from when the rotator was last set up, not from
// when the logger was made, since a process (a test suite) may set up
// several managers minutes apart.
type settleWindow struct{ until atomic.Int64 }

// openFrom opens the window for certSettleTime from t.
func (w *settleWindow) openFrom(t time.Time) { w.until.Store(t.Add(certSettleTime).UnixNano()) }

// open reports whether the window is open at now.
func (w *settleWindow) open(now time.Time) bool { return now.UnixNano() < w.until.Load() }

// rotatorSettling is the process's window, opened by setupWebhooks.
var rotatorSettling settleWindow

// The certificate rotator's own writers race on a fresh install: the one
// that runs at start and the one its Secret's event starts both fill the
// empty Secret (one conflicts), and the second reads it back from a cache
// that has not seen it yet. It retries both, and logs each as an error.
var settlingMessages = []string{
	"secret is not well-formed, cannot update webhook configurations",
	"Webhook not found. Unable to update certificate.",
}

// settlingLogger logs the rotator's settling errors (settlingError) as info
// at V(1) while window is open; every other error, and every error after
// it, stays an error.
func settlingLogger(l logr.Logger, window *settleWindow) logr.Logger {
	sink := l.GetSink()
	if sink == nil {
		return l
	}
	if cd, ok := sink.(logr.CallDepthLogSink); ok {
		sink = cd.WithCallDepth(1) // this sink's own frame
	}
	return logr.New(settlingSink{LogSink: sink, window: window, now: time.Now})
}

// settlingSink wraps a sink, knowing whether it logs for the rotator: by
// its name, or by the controller its reconcile errors are logged for.
type settlingSink struct {
	logr.LogSink
	rotator bool
	window  *settleWindow
	now     func() time.Time
}

func (s settlingSink) WithName(name string) logr.LogSink {
	s.rotator = s.rotator || name == "cert-rotation"
	s.LogSink = s.LogSink.WithName(name)
	return s
}

func (s settlingSink) WithValues(keysAndValues ...any) logr.LogSink {
	for i := 0; i+1 < len(keysAndValues); i += 2 {
		s.rotator = s.rotator || keysAndValues[i] == "controller" && keysAndValues[i+1] == "cert-rotator"
	}
	s.LogSink = s.LogSink.WithValues(keysAndValues...)
	return s
}

func (s settlingSink) WithCallDepth(depth int) logr.LogSink {
	if cd, ok := s.LogSink.(logr.CallDepthLogSink); ok {
		s.LogSink = cd.WithCallDepth(depth)
	}
	return s
}

func (s settlingSink) Error(err error, msg string, keysAndValues ...any) {
	if !s.rotator || !s.window.open(s.now()) || !settlingError(err, msg) {
		s.LogSink.Error(err, msg, keysAndValues...)
		return
	}
	if s.Enabled(1) {
		s.Info(1, msg+" (retried while the certificate is first issued)",
			append(slices.Clone(keysAndValues), "error", errorText(err))...)
	}
}

// settlingError is true of the errors the rotator retries on its own while
// a fresh install settles.
func settlingError(err error, msg string) bool {
	return apierrors.IsConflict(err) || slices.Contains(settlingMessages, msg)
}

func errorText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

var _ logr.CallDepthLogSink = settlingSink{}
