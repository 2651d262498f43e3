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

package release

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"path/filepath"
	texttemplate "text/template"
)

// RenderKrew renders the krew index entry template (.krew.yaml) for the
// release tag as krew-release-bot does: TagName is the tag, and
// addURIAndSha renders its URL with the tag and adds the sha256 of the
// asset the URL names, read here from the file of that name in dist. An
// asset missing from dist is an error: the entry would not install.
func RenderKrew(manifest []byte, tag, dist string) ([]byte, error) {
	funcs := texttemplate.FuncMap{"addURIAndSha": func(url, tag string) (string, error) {
		var rendered bytes.Buffer
		tmpl, err := texttemplate.New("url").Parse(url)
		if err != nil {
			return "", err
		}
		if err := tmpl.Execute(&rendered, struct{ TagName string }{tag}); err != nil {
			return "", err
		}
		asset := filepath.Join(dist, path.Base(rendered.String()))
		sum, err := FileSHA256(asset)
		if err != nil {
			return "", fmt.Errorf("the asset of %s: %w", rendered.String(), err)
		}
		return fmt.Sprintf("uri: %s\n    sha256: %q", rendered.String(), sum), nil
	}}
	tmpl, err := texttemplate.New(".krew.yaml").Funcs(funcs).Parse(string(manifest))
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := tmpl.Execute(&out, struct{ TagName string }{tag}); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// FileSHA256 is the hex sha256 of a file, as sha256sum prints it.
func FileSHA256(file string) (string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}
