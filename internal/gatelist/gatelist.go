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

// Package gatelist lists CRD field feature gates the way `kubectl
// api-resources` lists resources; the kubectl-feature_gates plugin prints it.
package gatelist

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	featuresv1alpha1 "github.com/applyset-operator/applyset-operator/api/features/v1alpha1"
	"github.com/applyset-operator/applyset-operator/pkg/featuregate"
)

// Row is one gate of one CRD.
type Row struct {
	CRD string `json:"crd"`
	// Component is the product the CRD belongs to, as its CustomFeatureGates
	// names it: whom the gate serves, and who decides when it flips.
	Component  string   `json:"component,omitempty"`
	Gate       string   `json:"gate"`
	PreRelease string   `json:"preRelease"`
	Default    *bool    `json:"default,omitempty"`
	Enabled    bool     `json:"enabled"`
	Reason     string   `json:"reason"`
	FieldPaths []string `json:"fieldPaths"`
}

// Rows reads every CustomFeatureGates object, or only the one of crd when
// given, and returns their gates sorted by CRD and gate.
func Rows(ctx context.Context, c client.Reader, crd string) ([]Row, error) {
	list := &featuresv1alpha1.CustomFeatureGatesList{}
	if err := c.List(ctx, list); err != nil {
		return nil, fmt.Errorf("listing CustomFeatureGates: %w", err)
	}
	var rows []Row
	for _, cfg := range list.Items {
		if crd != "" && cfg.Name != crd {
			continue
		}
		for _, g := range featuregate.FromAPI(cfg.Spec.FeatureGates) {
			enabled, reason := featuregate.Effective(g)
			rows = append(rows, Row{CRD: cfg.Name, Component: cfg.Spec.Component, Gate: g.Name, PreRelease: g.PreRelease, Default: g.Default,
				Enabled: enabled, Reason: reason, FieldPaths: g.FieldPaths})
		}
	}
	slices.SortFunc(rows, func(a, b Row) int { return cmp.Or(cmp.Compare(a.CRD, b.CRD), cmp.Compare(a.Gate, b.Gate)) })
	return rows, nil
}

// wide adds the reason and the field paths to the table.
const wide = "wide"

// Print writes rows in format: "" (a table), wide, name, json or yaml.
func Print(w io.Writer, rows []Row, format string) error {
	switch format {
	case "", wide:
		tw := tabwriter.NewWriter(w, 0, 8, 3, ' ', 0)
		header := "CRD\tCOMPONENT\tGATE\tSTAGE\tDEFAULT\tENABLED"
		if format == wide {
			header += "\tREASON\tFIELD PATHS"
		}
		fmt.Fprintln(tw, header)
		for _, r := range rows {
			line := strings.Join([]string{r.CRD, orNone(r.Component), r.Gate, r.PreRelease, boolText(r.Default), strconv.FormatBool(r.Enabled)}, "\t")
			if format == wide {
				line += "\t" + r.Reason + "\t" + strings.Join(r.FieldPaths, ",")
			}
			fmt.Fprintln(tw, line)
		}
		return tw.Flush()
	case "name":
		for _, r := range rows {
			fmt.Fprintf(w, "%s/%s\n", r.CRD, r.Gate)
		}
		return nil
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(nonNil(rows))
	case "yaml":
		data, err := yaml.Marshal(nonNil(rows))
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	}
	return fmt.Errorf("unknown output format %q: use wide, name, json or yaml", format)
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}

func boolText(b *bool) string {
	if b == nil {
		return "<unset>"
	}
	return strconv.FormatBool(*b)
}

func nonNil(rows []Row) []Row {
	if rows == nil {
		return []Row{}
	}
	return rows
}
