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
	"fmt"
	"io"
	"net/http"
	"syscall"
	"time"

	dto "github.com/prometheus/client_model/go"
	"k8s.io/client-go/rest"
)

// CPU is the processor time, user and system, spent so far by each part of a
// benchmark: the API server, etcd, this process (which runs the operator)
// and the children it waited for (kubectl and the peers' binaries).
type CPU struct {
	APIServer, Etcd, Self, Children time.Duration
}

// Sub returns the time spent between an earlier reading and c.
func (c CPU) Sub(earlier CPU) CPU {
	return CPU{
		APIServer: c.APIServer - earlier.APIServer,
		Etcd:      c.Etcd - earlier.Etcd,
		Self:      c.Self - earlier.Self,
		Children:  c.Children - earlier.Children,
	}
}

// ReadCPU reads process_cpu_seconds_total from the API server's and etcd's
// metrics, and this process's own usage and that of its waited-for children.
func ReadCPU(ctx context.Context, cfg *rest.Config, etcdURL string) (CPU, error) {
	families, err := apiServerMetrics(ctx, cfg)
	if err != nil {
		return CPU{}, err
	}
	var out CPU
	if out.APIServer, err = processCPU(families); err != nil {
		return CPU{}, fmt.Errorf("the API server's metrics: %w", err)
	}
	raw, err := get(ctx, etcdURL+"/metrics")
	if err != nil {
		return CPU{}, fmt.Errorf("reading etcd's metrics: %w", err)
	}
	if families, err = parseMetrics(raw); err != nil {
		return CPU{}, fmt.Errorf("parsing etcd's metrics: %w", err)
	}
	if out.Etcd, err = processCPU(families); err != nil {
		return CPU{}, fmt.Errorf("etcd's metrics: %w", err)
	}
	out.Self, err = rusage(syscall.RUSAGE_SELF)
	if err != nil {
		return CPU{}, err
	}
	out.Children, err = rusage(syscall.RUSAGE_CHILDREN)
	return out, err
}

func processCPU(families map[string]*dto.MetricFamily) (time.Duration, error) {
	family := families["process_cpu_seconds_total"]
	if family == nil || len(family.GetMetric()) != 1 {
		return 0, fmt.Errorf("no single process_cpu_seconds_total")
	}
	seconds := family.GetMetric()[0].GetCounter().GetValue()
	return time.Duration(seconds * float64(time.Second)), nil
}

func get(ctx context.Context, url string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return io.ReadAll(io.LimitReader(resp.Body, 64<<20))
}

func rusage(who int) (time.Duration, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0, fmt.Errorf("getrusage: %w", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}

func (c CPU) String() string {
	round := func(d time.Duration) time.Duration { return d.Round(10 * time.Millisecond) }
	return fmt.Sprintf("API server %s, etcd %s, benchmark process %s, exited children %s",
		round(c.APIServer), round(c.Etcd), round(c.Self), round(c.Children))
}

// ProcessCPU reads process_cpu_seconds_total from the Prometheus metrics a
// process serves at url, such as a controller of another project run beside
// the operator.
func ProcessCPU(ctx context.Context, url string) (time.Duration, error) {
	raw, err := get(ctx, url)
	if err != nil {
		return 0, err
	}
	families, err := parseMetrics(raw)
	if err != nil {
		return 0, fmt.Errorf("parsing %s: %w", url, err)
	}
	return processCPU(families)
}
