"""docker-compose.yml, the Dockerfiles and supervisord.conf, checked without a Docker engine:
the compose file against the official compose-spec JSON schema (shipped in the docker-compose 1.29.2
wheel on PyPI, fetched once into a cache), health checks and start order, version agreement with the
test servers, referenced files, and supervisord.conf parsed and run by supervisor itself."""
from __future__ import annotations

import copy
import json
import os
import re
import shlex
import subprocess
import sys
import time
import zipfile
from pathlib import Path
from urllib.parse import urlsplit

import jsonschema
import pymysql
import pytest
import redis
import yaml

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
APP_DOCKERFILE = ROOT / "deploy" / "Dockerfile"
ES_DOCKERFILE = ROOT / "deploy" / "elasticsearch" / "Dockerfile"
ES_POM = ROOT / "deploy" / "elasticsearch" / "pom.xml"
SUPERVISORD_CONF = ROOT / "deploy" / "supervisord.conf"
BACKENDS = ("mysql", "redis", "elasticsearch")

# The compose-spec schema as Docker published it inside docker-compose 1.29.2. That package cannot be
# installed next to ours (it pins jsonschema<4 and PyYAML<6), so only its wheel is downloaded.
SCHEMA_REQUIREMENT = "docker-compose==1.29.2"
SCHEMA_MEMBER = "compose/config/compose_spec.json"
SCHEMA_CACHE = Path(os.environ.get("MCRAWL_CACHE_DIR", Path.home() / ".cache" / "mcrawl")) / "compose-spec"


@pytest.fixture(scope="module")
def compose_schema() -> dict:
    wheels = sorted(SCHEMA_CACHE.glob("docker_compose-1.29.2-*.whl"))
    if not wheels:
        result = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
             "-d", str(SCHEMA_CACHE), SCHEMA_REQUIREMENT],
            capture_output=True, text=True, timeout=300)
        wheels = sorted(SCHEMA_CACHE.glob("docker_compose-1.29.2-*.whl"))
        if result.returncode != 0 or not wheels:
            pytest.fail(f"could not fetch the compose-spec schema ({SCHEMA_REQUIREMENT} from PyPI):\n{result.stderr}")
    with zipfile.ZipFile(wheels[-1]) as wheel:
        return json.loads(wheel.read(SCHEMA_MEMBER))


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))


def schema_errors(schema: dict, doc: dict) -> list[str]:
    validator = jsonschema.Draft201909Validator(schema)
    return [f"{'/'.join(map(str, e.path)) or '(top)'}: {e.message}" for e in validator.iter_errors(doc)]


def start_order_problems(doc: dict) -> list[str]:
    """Services without a health check, and app services that start before their backends are healthy."""
    services = doc.get("services", {})
    problems = []
    for name, service in services.items():
        check = service.get("healthcheck") or {}
        if check.get("disable") or not check.get("test"):
            problems.append(f"{name}: no healthcheck")
        for dep, cond in (service.get("depends_on") or {}).items():
            if dep not in services:
                problems.append(f"{name}: depends on unknown service {dep}")
            elif cond.get("condition") != "service_healthy":
                problems.append(f"{name}: starts before {dep} is healthy")
        if name not in BACKENDS:
            for backend in BACKENDS:
                if backend not in (service.get("depends_on") or {}):
                    problems.append(f"{name}: does not wait for {backend}")
    return problems


def test_compose_file_matches_the_compose_spec_schema(compose_schema, compose):
    assert compose_schema["$schema"].startswith("http://json-schema.org/")
    assert schema_errors(compose_schema, compose) == []


def test_schema_check_rejects_broken_compose_files(compose_schema, compose):
    typo = copy.deepcopy(compose)
    typo["services"]["redis"]["healthcheck"]["intervall"] = "10s"
    assert any("intervall" in e for e in schema_errors(compose_schema, typo))
    bad_condition = copy.deepcopy(compose)
    bad_condition["services"]["app"]["depends_on"]["mysql"]["condition"] = "when_ready"
    assert schema_errors(compose_schema, bad_condition)
    bad_top = copy.deepcopy(compose)
    bad_top["servces"] = bad_top.pop("services")
    assert schema_errors(compose_schema, bad_top)


def test_every_service_is_health_checked_and_waits_for_healthy_backends(compose):
    assert set(compose["services"]) == {*BACKENDS, "app", "web"}
    assert start_order_problems(compose) == []


def test_start_order_check_flags_missing_health_checks_and_conditions(compose):
    broken = copy.deepcopy(compose)
    del broken["services"]["redis"]["healthcheck"]
    broken["services"]["web"]["depends_on"]["elasticsearch"] = {"condition": "service_started"}
    del broken["services"]["app"]["depends_on"]["mysql"]
    assert sorted(start_order_problems(broken)) == [
        "app: does not wait for mysql", "redis: no healthcheck", "web: starts before elasticsearch is healthy"]


def test_data_lives_in_named_volumes(compose):
    declared = set(compose["volumes"])
    for name in (*BACKENDS, "app"):
        named = {v.split(":", 1)[0] for v in compose["services"][name].get("volumes", []) if not v.startswith(".")}
        assert named and named <= declared, name


def _pom_es_version() -> str:
    match = re.search(r"<elasticsearch\.version>([^<]+)</elasticsearch\.version>", ES_POM.read_text())
    assert match, "elasticsearch.version missing from pom.xml"
    return match.group(1)


def test_elasticsearch_versions_agree_everywhere(compose):
    import elasticsearch

    es = compose["services"]["elasticsearch"]
    test_node = _pom_es_version()
    arg_default = re.search(r"^ARG ES_VERSION=(\S+)$", ES_DOCKERFILE.read_text(), re.M).group(1)
    assert es["build"]["args"]["ES_VERSION"] == arg_default == test_node
    assert es["image"].rsplit(":", 1)[1] == test_node
    assert test_node.split(".")[0] == elasticsearch.__versionstr__.split(".")[0] == "8"
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert '"elasticsearch>=8,<9"' in pyproject
    # The image carries the plugin that provides the analyzer type the index template names.
    template = json.loads((ROOT / "deploy" / "elasticsearch" / "index-template.json").read_text())
    assert template["template"]["settings"]["analysis"]["analyzer"]["mcrawl_text"]["type"] == "smartcn"
    assert re.search(r"elasticsearch-plugin install --batch analysis-smartcn\b", ES_DOCKERFILE.read_text())


def test_mariadb_and_redis_images_match_the_test_servers(compose, mysql_url, redis_url):
    mysql_tag = compose["services"]["mysql"]["image"].split(":")[1]
    redis_tag = compose["services"]["redis"]["image"].split(":")[1]
    parts = urlsplit(mysql_url)
    conn = pymysql.connect(host=parts.hostname, port=parts.port, user=parts.username, password=parts.password)
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT VERSION()")
            server_version = cur.fetchone()[0]
    finally:
        conn.close()
    assert "MariaDB" in server_version
    assert server_version.startswith(mysql_tag + "."), (server_version, mysql_tag)
    redis_version = redis.Redis.from_url(redis_url).info("server")["redis_version"]
    assert redis_version.startswith(redis_tag + "."), (redis_version, redis_tag)


def test_app_services_point_at_the_compose_backends(compose):
    ports = {"mysql": 3306, "redis": 6379, "elasticsearch": 9200}
    for name in ("app", "web"):
        env = compose["services"][name]["environment"]
        for var, backend in (("MCRAWL_DB", "mysql"), ("MCRAWL_QUEUE", "redis"), ("MCRAWL_INDEX", "elasticsearch")):
            url = urlsplit(env[var].replace("${MCRAWL_DB_PASSWORD:-mcrawl}", "pw"))
            assert (url.hostname, url.port) == (backend, ports[backend]), (name, var)
    assert compose["services"]["mysql"]["environment"]["MARIADB_DATABASE"] == "mcrawl"


def test_files_the_compose_file_and_dockerfiles_use_exist(compose):
    for name, service in compose["services"].items():
        for volume in service.get("volumes", []):
            if volume.startswith("./"):
                assert (ROOT / volume.split(":", 1)[0]).is_file(), f"{name}: {volume}"
        build = service.get("build")
        if build:
            context = ROOT / build["context"]
            assert context.is_dir(), name
            assert (context / build.get("dockerfile", "Dockerfile")).is_file(), name
    copies = re.findall(r"^COPY (.+) \S+$", APP_DOCKERFILE.read_text(), re.M)
    assert copies
    for line in copies:
        for source in line.split():
            assert (ROOT / source).exists(), f"deploy/Dockerfile copies missing {source}"
    cmd = re.search(r"^CMD (\[.*\])$", APP_DOCKERFILE.read_text(), re.M).group(1)
    conf_in_image = json.loads(cmd)[-1]
    assert conf_in_image == "/app/deploy/supervisord.conf"
    assert (ROOT / conf_in_image.removeprefix("/app/")).is_file()


def _supervisor_programs(env: dict[str, str]) -> dict[str, str]:
    from supervisor.options import ServerOptions

    saved = dict(os.environ)
    os.environ.update(env)
    try:
        options = ServerOptions()
        options.realize(args=["-c", str(SUPERVISORD_CONF)])
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return {p.name: p.command for g in options.process_group_configs for p in g.process_configs}


def test_supervisord_runs_controller_spiders_and_n_workers():
    programs = _supervisor_programs({"MCRAWL_WORKERS": "3", "MCRAWL_WORKER_THREADS": "4"})
    assert sorted(programs) == ["controller", "spiders", "worker-00", "worker-01", "worker-02"]
    assert programs["worker-02"] == "mcrawl worker --concurrency 4"


def test_every_command_the_images_run_is_a_valid_mcrawl_command(compose):
    from crawler.cli import COMMANDS, build_parser

    commands = list(_supervisor_programs({"MCRAWL_WORKERS": "1", "MCRAWL_WORKER_THREADS": "2"}).values())
    commands.append(shlex.join(compose["services"]["web"]["command"]))
    for command in commands:
        argv = shlex.split(command)
        assert argv[0] == "mcrawl" and argv[1] in COMMANDS, command
        build_parser(argv[1]).parse_args(argv[1:])  # exits (fails the test) on an unknown option


def test_supervisord_starts_every_program(tmp_path):
    """supervisord itself, on the real config (socket and pid moved to tmp_path), with the embedded
    backends so nothing touches the shared servers: every program must reach RUNNING."""
    conf = SUPERVISORD_CONF.read_text().replace("/tmp/supervisor.sock", str(tmp_path / "s.sock"))
    conf = conf.replace("/tmp/supervisord.pid", str(tmp_path / "s.pid"))
    conf_path = tmp_path / "supervisord.conf"
    conf_path.write_text(conf)
    bin_dir = str(Path(sys.executable).parent)
    env = {k: v for k, v in os.environ.items() if not k.startswith("MCRAWL_")}
    env.update(PATH=f"{bin_dir}:{env.get('PATH', '')}", MCRAWL_DATA=str(tmp_path / "var"),
               MCRAWL_WORKERS="2", MCRAWL_WORKER_THREADS="1")
    with open(tmp_path / "supervisord.log", "wb") as log:
        daemon = subprocess.Popen([str(Path(bin_dir) / "supervisord"), "-c", str(conf_path)], env=env,
                                  stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    ctl = [str(Path(bin_dir) / "supervisorctl"), "-c", str(conf_path)]
    try:
        expected = {"controller", "spiders", "worker:worker-00", "worker:worker-01"}
        deadline = time.monotonic() + 60
        states: dict[str, str] = {}
        while time.monotonic() < deadline:
            # Exit code 0 also covers STARTING; RUNNING means the program outlived startsecs.
            status = subprocess.run([*ctl, "status"], capture_output=True, text=True, env=env, timeout=30)
            states = {line.split()[0]: line.split()[1] for line in status.stdout.splitlines() if line.strip()}
            if set(states) == expected and set(states.values()) == {"RUNNING"}:
                break
            time.sleep(1)
        assert states == dict.fromkeys(expected, "RUNNING"), (
            f"{states}\n{(tmp_path / 'supervisord.log').read_text()[-3000:]}")
    finally:
        subprocess.run([*ctl, "shutdown"], capture_output=True, env=env, timeout=90)
        try:
            daemon.wait(timeout=90)
        except subprocess.TimeoutExpired:
            daemon.kill()
