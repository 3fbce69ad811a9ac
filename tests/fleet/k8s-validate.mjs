// Validates Kubernetes manifests against the API's schema (the npm package kubernetes-models,
// whose models carry the OpenAPI schema of each kind and check an object against it offline).
// Usage: node k8s-validate.mjs MODULES_DIR FILE.yaml...  Prints one line per document; exits 1
// when any document is invalid or of a kind it cannot check.
import { readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [modules, ...files] = process.argv.slice(2);
// the packages live in MODULES_DIR/node_modules, not beside this file: imported by path
const load = (p) => import(pathToFileURL(path.resolve(modules, "node_modules", p)).href);
const YAML = (await load("yaml/dist/index.js")).default;
const models = (p) => load(`kubernetes-models/${p}/index.js`);
const groups = {
  "v1": await models("v1"),
  "apps/v1": await models("apps/v1"),
  "batch/v1": await models("batch/v1"),
};
let bad = 0;
for (const file of files) {
  for (const doc of YAML.parseAllDocuments(readFileSync(file, "utf8"))) {
    if (doc.errors.length) {
      console.log(`${file}: YAML error: ${doc.errors[0].message}`);
      bad++;
      continue;
    }
    const obj = doc.toJSON();
    if (!obj) continue;
    const Kind = groups[obj.apiVersion]?.[obj.kind];
    if (!Kind) {
      console.log(`${file}: cannot check ${obj.apiVersion} ${obj.kind}`);
      bad++;
      continue;
    }
    try {
      new Kind(obj).validate();
      console.log(`${file}: ${obj.apiVersion} ${obj.kind} ${obj.metadata?.name}: valid`);
    } catch (e) {
      console.log(`${file}: ${obj.apiVersion} ${obj.kind}: INVALID: ${e.message}`);
      bad++;
    }
  }
}
process.exit(bad ? 1 : 0);
