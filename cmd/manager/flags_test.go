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
	"flag"
	"strings"
	"testing"
)

func TestClientRateFlags(t *testing.T) {
	tests := []struct {
		args    []string
		qps     float64
		burst   int
		wantErr string
	}{
		{args: nil, qps: -1, burst: 100},
		{args: []string{"--kube-api-qps=200", "--kube-api-burst=400"}, qps: 200, burst: 400},
		{args: []string{"--kube-api-qps=0"}, wantErr: "must be positive"},
		{args: []string{"--kube-api-qps=50", "--kube-api-burst=0"}, wantErr: "with a positive --kube-api-burst"},
		{args: []string{"--kube-api-burst=0"}, qps: -1, burst: 0},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var o options
			fs := flag.NewFlagSet("manager", flag.ContinueOnError)
			o.bindFlags(fs)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			err := o.validate()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("want an error saying %q, got %v", tt.wantErr, err)
				}
				return
			}
			if err != nil || o.kubeAPIQPS != tt.qps || o.kubeAPIBurst != tt.burst {
				t.Errorf("got qps %v burst %d err %v, want %v %d", o.kubeAPIQPS, o.kubeAPIBurst, err, tt.qps, tt.burst)
			}
		})
	}
}
