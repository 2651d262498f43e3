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

package applysets

import (
	"errors"
	"strings"
	"testing"

	applyv1alpha1 "github.com/applyset-operator/applyset-operator/api/apply/v1alpha1"
)

func TestJoinWaiting(t *testing.T) {
	tests := []struct {
		name    string
		sets    string
		objects objectsWait
		want    string
	}{
		{name: "nothing to wait for", want: ""},
		{name: "sets only", sets: "ApplySet a/b does not exist", want: "ApplySet a/b does not exist"},
		{name: "sets first, then objects", sets: "ApplySet a/b does not exist",
			objects: objectsWait{waiting: []string{"Certificate a/c does not exist"}},
			want:    "ApplySet a/b does not exist; Certificate a/c does not exist"},
		{name: "an unwatched object says the set looks again by itself",
			objects: objectsWait{waiting: []string{"Widget a/w does not exist"}, unwatched: "Widget a/w (the API server does not serve it)"},
			want: "Widget a/w does not exist; the operator does not watch Widget a/w (the API server does not serve it), " +
				"so the set looks again by itself, less often the longer it waits"},
		{name: "many waits name the first few, keeping room for what is not watched",
			objects: objectsWait{waiting: []string{"a", "b", "c", "d", "e", "f", "g"}, unwatched: "ConfigMap a/g (a bound)"},
			want: "a; b; c; d; e; and 2 more; the operator does not watch ConfigMap a/g (a bound), " +
				"so the set looks again by itself, less often the longer it waits"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := joinWaiting(tt.sets, tt.objects); got != tt.want {
				t.Errorf("joinWaiting = %q; want %q", got, tt.want)
			}
		})
	}
}

func TestReadyExprs(t *testing.T) {
	deps := []applyv1alpha1.Dependency{{Name: "platform"}, {APIVersion: "v1", Kind: "ConfigMap", Name: "a", ReadyExpr: "has(self.data)"},
		{APIVersion: "v1", Kind: "ConfigMap", Name: "b", ReadyExpr: "self.data =="}}
	if _, err := readyExprs(deps); !errors.Is(err, errInvalidReadyExpr) || !strings.Contains(err.Error(), "spec.dependsOn[2].readyExpr") {
		t.Errorf("readyExprs = %v; want the third entry named", err)
	}
	conds, err := readyExprs(deps[:2])
	if err != nil || len(conds) != 1 || conds[1] == nil {
		t.Errorf("readyExprs = %v, %v; want the second entry's condition", conds, err)
	}
}
