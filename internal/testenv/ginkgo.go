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

package testenv

import (
	"context"
	"io"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	ctrl "sigs.k8s.io/controller-runtime"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	"github.com/applyset-operator/applyset-operator/internal/controlplane"
)

// StartForSpecs starts a control plane from a ginkgo node (BeforeSuite, or a
// spec) and stops it when that node's scope ends. The operator's logs go to
// the GinkgoWriter and Eventually waits up to 30 seconds, as the API-server
// suites all want.
func StartForSpecs(ctx context.Context) *Env {
	ginkgo.GinkgoHelper()
	return StartForSpecsWith(ctx, controlplane.Options{})
}

// StartForSpecsWith is StartForSpecs with options for the control plane.
func StartForSpecsWith(ctx context.Context, opts controlplane.Options) *Env {
	ginkgo.GinkgoHelper()
	logf.SetLogger(zap.New(zap.WriteTo(ginkgo.GinkgoWriter), zap.UseDevMode(true)))
	gomega.SetDefaultEventuallyTimeout(30 * time.Second)
	env, err := startWith(ctx, ginkgo.GinkgoT().TempDir(), opts)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	ginkgo.DeferCleanup(env.Stop)
	return env
}

// CaptureLogs sends the operator's logs to the returned buffer as well as to
// the GinkgoWriter. Call it before anything logs: controller-runtime's
// loggers keep the first logger set in a process.
func CaptureLogs() *SyncBuffer {
	logs := &SyncBuffer{}
	logf.SetLogger(zap.New(zap.WriteTo(io.MultiWriter(ginkgo.GinkgoWriter, logs)), zap.UseDevMode(true)))
	return logs
}

// StartManager is RunManager from a ginkgo node: the manager stops, and its
// error fails the suite, when that node's scope ends (before a control plane
// that StartForSpecs started in an enclosing scope).
func (e *Env) StartManager(setup func(ctrl.Manager) error) {
	ginkgo.GinkgoHelper()
	e.StartManagerWith(nil, setup)
}

// StartManagerWith is StartManager with the manager's options changed by
// adjust, as RunManagerWith.
func (e *Env) StartManagerWith(adjust func(*ctrl.Options), setup func(ctrl.Manager) error) {
	ginkgo.GinkgoHelper()
	stop, err := e.RunManagerWith(adjust, setup)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	ginkgo.DeferCleanup(stop)
}
