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

package parents

import (
	"context"
	"slices"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/tools/pager"

	"github.com/applyset-operator/applyset-operator/internal/applysetcli/cli"
	"github.com/applyset-operator/applyset-operator/internal/health"
	"github.com/applyset-operator/applyset-operator/internal/membership"
	"github.com/applyset-operator/applyset-operator/internal/setrun"
	"github.com/applyset-operator/applyset-operator/pkg/apply"
	"github.com/applyset-operator/applyset-operator/pkg/applyset"
)

// The words of the plugin keep two verdicts apart. Findings are about the
// ApplySet contract: the parent's ID, tooling and hints, its scope, who owns
// its members. Health is what kstatus says of the members themselves, read
// like 52/59 ready, as the HEALTH column of kubectl get applysets reads. A set
// can have no findings while its Deployments still roll out, and the reverse.

// rowsOf is a row for each member, as its metadata has it: unjudged.
func rowsOf(members []membership.Member) []MemberHealth {
	out := make([]MemberHealth, len(members))
	for i, m := range members {
		out[i] = MemberHealth{Kind: m.GroupKind.String(), Namespace: m.Namespace, Name: m.Name, dependsOn: m.DependsOn}
	}
	return out
}

// judge judges the health of the members at the indexes at, by checkers[i]
// for members[i], into out[i]: its set's checks, as the operator judges them.
// A member whose verdict its metadata decides (a ConfigMap, a Secret, RBAC:
// health.JudgesByMetadata) is judged from the metadata the snapshot listed,
// so a set of 100,000 of them reads none whole. Of the others, a resource
// with at least listMembersAt members to judge, and most of the set's members
// of it, is listed once, by the part-of label, in their namespace or
// everywhere (as the snapshot listed it): a page of a big set is not worth
// reading the whole set for. Any other member, and any a list did not
// return, is read with a GET, a few at a time.
func judge(ctx context.Context, c *cli.Clients, members []membership.Member, checkers []*health.Checker, out []MemberHealth, at []int) {
	inSet := map[schema.GroupVersionResource]int{}
	for _, m := range members {
		inSet[m.Resource]++
	}
	byResource := map[schema.GroupVersionResource][]int{}
	for _, i := range at {
		m := members[i]
		if checkers[i].JudgesByMetadata(m.GroupKind) {
			out[i].judged(checkers[i], memberObject(m))
			continue
		}
		byResource[m.Resource] = append(byResource[m.Resource], i)
	}
	var read []int
	for resource, some := range byResource {
		if len(some) >= listMembersAt && 2*len(some) >= inSet[resource] {
			judgeListed(ctx, c, resource, some, out, checkers)
		}
		for _, i := range some {
			if out[i].Health == "" {
				read = append(read, i)
			}
		}
	}
	var wg sync.WaitGroup
	slots := make(chan struct{}, 8)
	for _, i := range read {
		m := members[i]
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			obj, err := c.Dynamic.Resource(m.Resource).Namespace(m.Namespace).Get(ctx, m.Name, metav1.GetOptions{})
			if err != nil {
				out[i].Health, out[i].Message = string(health.Unknown), err.Error()
				return
			}
			out[i].judged(checkers[i], obj)
		}()
	}
	wg.Wait()
}

// every is the indexes of n members: all of them.
func every(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// judgedPageSize is how many whole members one LIST of them returns: 2,000
// keeps a set of 100,000 to 50 requests, within what the client's rate limit
// lets through at once (pages of 500 made a page of the ui wait 7 s on it),
// and a page of big objects to tens of MiB.
const judgedPageSize = 2000

// listMembersAt is how many members of one resource make one list of it
// cheaper than a GET of each.
const listMembersAt = 16

// judgeListed lists resource's objects that carry the part-of label and
// judges the members at the given indexes among them. A list that fails
// leaves them unjudged, to be read one by one.
func judgeListed(ctx context.Context, c *cli.Clients, resource schema.GroupVersionResource, at []int, out []MemberHealth, checkers []*health.Checker) {
	wanted := make(map[types.NamespacedName][]int, len(at)) // one object may be judged for several sets
	namespaces := sets.New[string]()
	for _, i := range at {
		key := types.NamespacedName{Namespace: out[i].Namespace, Name: out[i].Name}
		wanted[key] = append(wanted[key], i)
		namespaces.Insert(out[i].Namespace)
	}
	judged := map[int]MemberHealth{}
	p := pager.New(func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
		if namespaces.Len() == 1 {
			return c.Dynamic.Resource(resource).Namespace(namespaces.UnsortedList()[0]).List(ctx, o)
		}
		return c.Dynamic.Resource(resource).List(ctx, o)
	})
	p.PageSize, p.PageBufferSize = judgedPageSize, 1
	err := p.EachListItem(ctx, metav1.ListOptions{LabelSelector: applyset.PartOfLabel}, func(obj runtime.Object) error {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return nil
		}
		for _, i := range wanted[types.NamespacedName{Namespace: u.GetNamespace(), Name: u.GetName()}] {
			m := out[i]
			m.judged(checkers[i], u)
			judged[i] = m
		}
		return nil
	})
	if err != nil {
		return // every member of the resource is read with a GET instead
	}
	for i, m := range judged {
		out[i] = m
	}
}

// memberObject is the member as its metadata has it: what Judge reads of a
// kind it judges by metadata, and the depends-on annotation.
func memberObject(m membership.Member) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(m.GroupKind.WithVersion(m.Resource.Version))
	obj.SetNamespace(m.Namespace)
	obj.SetName(m.Name)
	obj.SetUID(m.UID)
	obj.SetDeletionTimestamp(m.DeletionTimestamp)
	if m.DependsOn != "" {
		obj.SetAnnotations(map[string]string{apply.DependsOnAnnotation: m.DependsOn})
	}
	return obj
}

// judged records what checker says of the member as obj is, and the
// dependencies obj declares.
func (m *MemberHealth) judged(checker *health.Checker, obj *unstructured.Unstructured) {
	r := checker.Judge(obj)
	m.Health, m.Message = string(r.Status), r.Message
	m.dependsOn = obj.GetAnnotations()[apply.DependsOnAnnotation]
}

// healthOf sums the members' health as the operator's status.health.summary does.
func healthOf(members []MemberHealth) string {
	var s health.Summary
	for _, m := range members {
		s.Add(health.Result{Status: health.Status(m.Health)})
	}
	return s.String()
}

// summarizeWithHealth is each parent's summary with its members' health,
// read live and judged by each set's checks. The members of all parents are
// read in one pool, so a cluster of many small sets is not read one set
// after another.
func summarizeWithHealth(ctx context.Context, c *cli.Clients, checked []checkedParent) []Summary {
	var (
		members  []membership.Member
		checkers []*health.Checker
		counts   = make([]int, len(checked))
	)
	for i, p := range checked {
		checker := checkerOf(ctx, c, p.Ref)
		counted := countedMembers(ctx, c, p.Ref, p.verdict)
		members, counts[i] = append(members, counted...), len(counted)
		for range counted {
			checkers = append(checkers, checker)
		}
	}
	judged := rowsOf(members)
	judge(ctx, c, members, checkers, judged, every(len(members)))
	out := make([]Summary, len(checked))
	for i, p := range checked {
		out[i] = summarize(p.Parent, p.verdict)
		out[i].Health = healthOf(judged[:counts[i]])
		judged = judged[counts[i]:]
	}
	return out
}

// countedMembers are the members whose health a set's summary counts. For
// the operator's sets they are those its record proves, as the operator
// counts them in status.health.summary: an object that only carries the
// label is no member of theirs. Other tools' sets keep no record: every
// object carrying the label counts.
func countedMembers(ctx context.Context, c *cli.Clients, ref membership.ParentRef, v membership.Verdict) []membership.Member {
	if !cli.IsOperatorSet(ref) {
		return v.Members
	}
	proofs, err := proofsOf(ctx, c, ref, v)
	if err != nil {
		return v.Members // the set is unreadable now: count what carries its label
	}
	return slices.DeleteFunc(slices.Clone(v.Members), func(m membership.Member) bool { return proofs(m) == proofLabel })
}

// checkerOf is what judges the members of the parent ref: one of the
// operator's sets' own checks (setrun.Checker, as the operator judges), kstatus
// alone for other tools' sets, and for a set the user may not read.
func checkerOf(ctx context.Context, c *cli.Clients, ref membership.ParentRef) *health.Checker {
	kstatus := &health.Checker{}
	if !cli.IsOperatorSet(ref) {
		return kstatus
	}
	cl, err := c.Client()
	if err != nil {
		return kstatus
	}
	set, err := cli.OperatorSetOf(ctx, cl, ref)
	if err != nil {
		return kstatus
	}
	checker, err := setrun.Checker(set.GetCommonSpec().HealthChecks, setrun.DefaultHealthCheckBudget)
	if err != nil {
		return kstatus
	}
	return checker
}

// checkersFor gives every member the same checker.
func checkersFor(members []membership.Member, checker *health.Checker) []*health.Checker {
	out := make([]*health.Checker, len(members))
	for i := range out {
		out[i] = checker
	}
	return out
}
