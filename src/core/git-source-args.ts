/**
 * Rules for the fields of `source.git` that reach a command line (git, kustomize, helm). Every value svc passes to
 * those tools is an argument of its own (no shell) and sits after `--` or in `--flag=value` form where the tool
 * allows it; these rules are the second fence: a value that a tool could read as an option (a leading `-`), or that
 * its own syntax would split (whitespace, `=` in an image name), is refused by the API at create (400) and stalls
 * the App in the operator (an edited resource), so it never reaches a process. The argument-injection class of
 * git's `--upload-pack=`/`-oProxyCommand=` advisories (CVE-2017-1000117, CVE-2018-17456) and Argo's
 * GHSA-fw5c-w8rc-j7fx (Helm options from a repository).
 */
import { repoURLProblem } from './app-state.ts';

/** Helm's own release-name rule (`helm template` refuses anything else): DNS-1123 subdomain, at most 53 characters. */
const HELM_RELEASE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** A branch name git accepts and no tool reads as an option: no leading `-`, no space or control character. */
const BRANCH = /^[\w.][\w./+@-]*$/;
/** `kustomize edit set image` syntax: `name`, `name=newName[:tag]`, `name:tag`, `name@digest`; no whitespace. */
const KUSTOMIZE_IMAGE = /^[^\s=-][^\s=]*(=[^\s=-][^\s=]*)?$/;
const NAME_PREFIX = /^[a-z0-9][-a-z0-9.]*$/;
/** Keys of `--set-string key=value`: Helm's path syntax, never starting with `-`. */
const INLINE_VALUE_KEY = /^[\w[][\w.[\]-]*$/;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Problems with a Helm release name and namespace (a Git source's `helm` block, a HelmChart source), each message
 * starting with `prefix`: the release name must be one `helm template` accepts, the namespace a DNS-1123 label.
 */
export function helmReleaseProblems(releaseName: unknown, namespace: unknown, prefix: string): string[] {
  const problems: string[] = [];
  if (typeof releaseName === 'string' && !HELM_RELEASE.test(releaseName)) {
    problems.push(`${prefix}.releaseName must be a Helm release name (DNS-1123, at most 53)`);
  }
  if (typeof releaseName === 'string' && releaseName.length > 53) {
    problems.push(`${prefix}.releaseName must be at most 53 characters`);
  }
  if (typeof namespace === 'string' && !DNS_LABEL.test(namespace)) {
    problems.push(`${prefix}.namespace must be a namespace name (DNS-1123 label)`);
  }
  return problems;
}

/**
 * Every problem with the command-line-bound fields of a Git source, each message starting with `prefix` (e.g.
 * `source.git` for the API, `spec.source.git` in the operator). Values are not echoed back (a repoURL may carry
 * credentials; the messages land in App conditions). Pure; an empty list means the fields are safe to pass on.
 * Wrong types are left to the schema validator.
 */
export function gitArgProblems(source: object, prefix: string): string[] {
  const git = source as Record<string, unknown>;
  const problems: string[] = [];
  const urlProblem = repoURLProblem(git['repoURL']);
  if (urlProblem) problems.push(urlProblem.replace(/^source\.git/, prefix));
  const check = checker(problems, prefix);
  check('branch', git['branch'], BRANCH, 'must be a branch name (letters, digits, . _ / + @ -; not starting with -)');
  const helm = isObject(git['helm']) ? git['helm'] : undefined;
  for (const [field, value] of [
    ['path', git['path']],
    ['helm.valuesFile', helm?.['valuesFile']],
  ] as const) {
    if (typeof value === 'string' && /^-|[\0\n\r]/.test(value)) {
      problems.push(`${prefix}.${field} must not start with - or contain control characters`);
    }
  }
  if (helm) helmProblems(helm, problems, prefix);
  if (isObject(git['kustomize'])) kustomizeProblems(git['kustomize'], check, problems, prefix);
  return problems;
}

/** Checks one field against a rule, adding `<prefix>.<field> <what>` to `problems` when a string breaks it. */
type Check = (field: string, value: unknown, rule: RegExp, what: string) => void;

function checker(problems: string[], prefix: string): Check {
  return (field, value, rule, what) => {
    if (typeof value === 'string' && !rule.test(value)) problems.push(`${prefix}.${field} ${what}`);
  };
}

/** `helm`: release name, namespace, the keys of inline values. */
function helmProblems(helm: Record<string, unknown>, problems: string[], prefix: string): void {
  problems.push(...helmReleaseProblems(helm['releaseName'], helm['namespace'], `${prefix}.helm`));
  const inline = helm['inlineValues'];
  for (const key of isObject(inline) ? Object.keys(inline) : []) {
    if (!INLINE_VALUE_KEY.test(key)) problems.push(`${prefix}.helm.inlineValues key "${key}" is not a value path`);
  }
}

/** `kustomize`: images, name prefix, components. */
function kustomizeProblems(kustomize: Record<string, unknown>, check: Check, problems: string[], prefix: string): void {
  const images = Array.isArray(kustomize['images']) ? (kustomize['images'] as unknown[]) : [];
  for (const image of images) {
    check('kustomize.images', image, KUSTOMIZE_IMAGE, `entry "${image}" must be name[=newName[:tag]] without -`);
  }
  check('kustomize.namePrefix', kustomize['namePrefix'], NAME_PREFIX, 'must be lower-case letters, digits, - and .');
  const components = Array.isArray(kustomize['components']) ? (kustomize['components'] as unknown[]) : [];
  for (const component of components) {
    if (typeof component === 'string' && /^-|[\0\n\r]/.test(component)) {
      problems.push(`${prefix}.kustomize.components entry "${component}" must not start with -`);
    }
  }
}
