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
	"bytes"
	"context"
	"fmt"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// RequestTotal is one series of the API server's apiserver_request_total.
type RequestTotal struct {
	// Labels are the series' labels: verb, resource, subresource, code...
	Labels map[string]string
	Value  float64
}

// RequestTotals reads apiserver_request_total from the API server's metrics,
// for suites and benchmarks that count the requests something made.
func RequestTotals(ctx context.Context, cfg *rest.Config) ([]RequestTotal, error) {
	families, err := apiServerMetrics(ctx, cfg)
	if err != nil {
		return nil, err
	}
	family := families["apiserver_request_total"]
	if family == nil {
		return nil, nil
	}
	out := make([]RequestTotal, 0, len(family.GetMetric()))
	for _, m := range family.GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		out = append(out, RequestTotal{Labels: labels, Value: m.GetCounter().GetValue()})
	}
	return out, nil
}

// SumBy adds up the totals by the value of one label, e.g. "verb".
func SumBy(totals []RequestTotal, label string) map[string]float64 {
	out := map[string]float64{}
	for _, t := range totals {
		out[t.Labels[label]] += t.Value
	}
	return out
}

// CounterSum adds up the series of the API server's counter family whose
// labels include labels, e.g. apiserver_mutating_admission_policy_check_total
// of one policy. A family the API server has not observed yet sums to 0.
func CounterSum(ctx context.Context, cfg *rest.Config, family string, labels map[string]string) (float64, error) {
	families, err := apiServerMetrics(ctx, cfg)
	if err != nil {
		return 0, err
	}
	sum := 0.0
	for _, m := range families[family].GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		if matches(have, labels) {
			sum += m.GetCounter().GetValue()
		}
	}
	return sum, nil
}

func matches(have, want map[string]string) bool {
	for k, v := range want {
		if have[k] != v {
			return false
		}
	}
	return true
}

// apiServerMetrics reads and parses the API server's /metrics.
func apiServerMetrics(ctx context.Context, cfg *rest.Config) (map[string]*dto.MetricFamily, error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	raw, err := cs.RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the API server's metrics: %w", err)
	}
	families, err := parseMetrics(raw)
	if err != nil {
		return nil, fmt.Errorf("parsing the API server's metrics: %w", err)
	}
	return families, nil
}

func parseMetrics(raw []byte) (map[string]*dto.MetricFamily, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	return parser.TextToMetricFamilies(bytes.NewReader(raw))
}
