#!/usr/bin/env bash
# On-demand end-to-end check of this example: verifiers 0.4.0's `openenv` taskset plays a
# served inbox-triage episode (ticket/generated, test, easy, seed 1) with a scripted model
# that answers with the oracle's actions, and the reward vf-eval records must equal the
# grade less penalties (0.95). Needs network on first use (pip, and uv fetching the harness
# program's dependencies from PyPI).
#
#   bash examples/verifiers-0.4/check.sh          # from the repo root
#
# VF04_VENV: the verifiers venv, made if missing (default ~/.cache/inbox-triage/vf04);
# VF04_PYTHON: the Python (3.11-3.14) that makes it (default: the project's .venv python).
# The work folder is removed on success and kept (its path printed) on failure.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"

project_python="$root/.venv/bin/python"
inbox_triage="$root/.venv/bin/inbox-triage"
helpers="$here/check_helpers.py"
venv="${VF04_VENV:-$HOME/.cache/inbox-triage/vf04}"
[[ -x "$project_python" && -x "$inbox_triage" ]] || {
  echo "no project venv at $root/.venv (install the project first)" >&2
  exit 2
}

started=$SECONDS
step() { printf '\n== [%3ds] %s\n' "$((SECONDS - started))" "$*"; }

step "verifiers venv: $venv"
if [[ ! -x "$venv/bin/python" ]]; then
  mkdir -p "$(dirname "$venv")"
  "${VF04_PYTHON:-$project_python}" -m venv "$venv"
fi
if [[ ! -x "$venv/bin/vf-eval" || ! -x "$venv/bin/uv" ]]; then
  "$venv/bin/pip" install --quiet "verifiers[openenv]==0.4.0" uv
fi
"$venv/bin/python" -c 'from importlib.metadata import version as v
print("verifiers", v("verifiers"), "| openenv", v("openenv"), "| uv", v("uv"))'

work="$(mktemp -d "${TMPDIR:-/tmp}/vf04-check.XXXXXX")"
pids=()
cleanup() {
  local rc=$?
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  if [[ $rc -eq 0 ]]; then
    rm -rf "$work"
  else
    echo "check failed (rc=$rc); its files are in $work" >&2
  fi
}
trap cleanup EXIT

ports_text="$("$project_python" "$helpers" ports 2)"
mapfile -t ports <<<"$ports_text"
env_port="${ports[0]}"
model_port="${ports[1]}"
env_url="http://127.0.0.1:$env_port"
model_url="http://127.0.0.1:$model_port/v1"

step "inbox-triage serve on $env_url (--max-sessions 4)"
"$inbox_triage" serve --host 127.0.0.1 --port "$env_port" --max-sessions 4 \
  >"$work/server.log" 2>&1 &
pids+=("$!")
"$project_python" "$helpers" wait "$env_url/healthz" 60

step "the oracle's actions, played on that server"
"$project_python" "$here/dump_oracle.py" "$work/oracle.json" --env-url "$env_url" \
  --task ticket/generated --split test --difficulty easy --seed 1

step "the same actions in an HTTP session, then GET /grader"
"$project_python" "$helpers" grader "$env_url" "$work/oracle.json" | tee "$work/grader.json"

step "scripted model on $model_url"
"$project_python" "$here/scripted_model.py" "$work/oracle.json" --port "$model_port" \
  --log "$work/requests.jsonl" >"$work/model.log" 2>&1 &
pids+=("$!")
"$project_python" "$helpers" wait "$model_url/models" 30

step "check config: inbox_triage.toml pointed at the two ports"
"$project_python" "$helpers" toml "$here/inbox_triage.toml" "$work/check.toml" \
  --script "$work/oracle.json" --output-dir "$work/outputs" --run-dir check \
  --model-url "$model_url" --env-url "$env_url"

step "vf-eval (its 'rollout done ... reward=0.000' line is logged before the reward is set)"
# uv must be on PATH: the null harness's chat program is a uv script.
if ! PATH="$venv/bin:$PATH" SCRIPTED_API_KEY=scripted \
  "$venv/bin/vf-eval" @ "$work/check.toml" --no-rich \
  >"$work/vf-eval.out" 2> >(tee "$work/vf-eval.err" >&2); then
  echo "vf-eval failed; stdout tail:" >&2
  tail -n 20 "$work/vf-eval.out" >&2
  exit 1
fi

step "compare"
"$project_python" "$helpers" compare --traces "$work/outputs/check/traces.jsonl" \
  --script "$work/oracle.json" --grader "$work/grader.json" \
  --requests "$work/requests.jsonl" --system-prompt "$here/system_prompt.txt"

step "the project's check of a saved run (exit 1 when every episode failed)"
"$project_python" -m inbox_triage.integrations.verifiers_check --strict "$work/outputs/check"
step "done"
