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

// Command manager runs the applyset-operator controllers and webhooks.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/applyset-operator/applyset-operator/internal/tracing"
)

// startTraces exports traces where the OTEL_* environment variables ask
// for them, and returns what flushes them when the manager stops.
func startTraces() (stop func(), err error) {
	shutdown, err := tracing.Setup(context.Background(), "applyset-operator")
	if err != nil {
		return nil, fmt.Errorf("setting up traces: %w", err)
	}
	if tracing.Requested(os.Getenv) {
		setupLog.Info("Exporting traces, as the OTEL_* environment variables say")
	}
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := shutdown(ctx); err != nil {
			setupLog.Error(err, "Flushing the traces")
		}
	}, nil
}
