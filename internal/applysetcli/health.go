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

package applysetcli

import (
	"context"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/applyset-operator/applyset-operator/pkg/health"
	"github.com/applyset-operator/applyset-operator/pkg/membership"
)

// The words of the plugin keep two verdicts apart. Findings are about the
// ApplySet contract: the parent's ID, tooling and hints, its scope, who owns
// its members. Health is what kstatus says of the members themselves, read
// like 52/59 ready, as the HEALTH column of kubectl get applysets reads. A set
// can have no findings while its Deployments still roll out, and the reverse.

// judge reads every member and judges its health, a few at a time.
func judge(ctx context.Context, c *clients, members []membership.Member) []memberHealth {
	var checker health.Checker // the zero Checker: kstatus judges every member
	out := make([]memberHealth, len(members))
	var wg sync.WaitGroup
	slots := make(chan struct{}, 8)
	for i, m := range members {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			out[i] = memberHealth{Kind: m.GroupKind.String(), Namespace: m.Namespace, Name: m.Name}
			obj, err := c.dynamic.Resource(m.Resource).Namespace(m.Namespace).Get(ctx, m.Name, metav1.GetOptions{})
			if err != nil {
				out[i].Health, out[i].Message = string(health.Unknown), err.Error()
				return
			}
			r := checker.Judge(obj)
			out[i].Health, out[i].Message = string(r.Status), r.Message
		}()
	}
	wg.Wait()
	return out
}

// healthOf sums the members' health as the operator's status.health.summary does.
func healthOf(members []memberHealth) string {
	var s health.Summary
	for _, m := range members {
		s.Add(health.Result{Status: health.Status(m.Health)})
	}
	return s.String()
}

// summarizeWithHealth is each parent's summary with its members' health,
// read live. The members of all parents are read in one pool, so a cluster of
// many small sets is not read one set after another.
func summarizeWithHealth(ctx context.Context, c *clients, parents []membership.Parent, verdicts []membership.Verdict) []summary {
	var members []membership.Member
	for _, v := range verdicts {
		members = append(members, v.Members...)
	}
	judged := judge(ctx, c, members)
	out := make([]summary, len(parents))
	for i, p := range parents {
		n := len(verdicts[i].Members)
		out[i] = summarize(p, verdicts[i])
		out[i].Health = healthOf(judged[:n])
		judged = judged[n:]
	}
	return out
}
