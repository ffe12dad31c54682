"""``Settings.load``: override > env ``NEXUS_*`` > ``$NEXUS_HOME/config.toml`` > default, and its errors.

Every test passes ``env=`` explicitly, so the real environment never matters, and uses ``tmp_path`` as home.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import click
import pytest

from kruschnexus.config import OCR_MODES, OcrMode, Settings
from kruschnexus.errors import ConfigError, PkgError

DEFAULT_MAX_CHARS = Settings.__dataclass_fields__["chunk_max_chars"].default


def write_config(home: Path, body: str) -> None:
    (home / "config.toml").write_text(body, encoding="utf-8")


def test_default_when_nothing_is_set(tmp_path: Path) -> None:
    settings = Settings.load(overrides={"home": tmp_path}, env={})
    assert settings.chunk_max_chars == DEFAULT_MAX_CHARS == 900
    assert settings.database_url is None
    assert settings.embedder == "local"
    assert settings.home == tmp_path.resolve()
    assert settings.blob_dir == tmp_path.resolve() / "blobs"
    assert settings.pgdata == tmp_path.resolve() / "pgdata"


def test_config_file_beats_default(tmp_path: Path) -> None:
    write_config(tmp_path, 'chunk_max_chars = 500\nembedder = "ollama:nomic-embed-text"\n')
    settings = Settings.load(env={"NEXUS_HOME": str(tmp_path)})
    assert settings.chunk_max_chars == 500
    assert settings.embedder == "ollama:nomic-embed-text"
    assert settings.threads == 2  # untouched keys keep their default


def test_env_beats_config_file(tmp_path: Path) -> None:
    write_config(tmp_path, "chunk_max_chars = 500\nthreads = 3\n")
    settings = Settings.load(env={"NEXUS_HOME": str(tmp_path), "NEXUS_CHUNK_MAX_CHARS": "700"})
    assert settings.chunk_max_chars == 700
    assert settings.threads == 3


def test_override_beats_env(tmp_path: Path) -> None:
    write_config(tmp_path, "chunk_max_chars = 500\n")
    env = {"NEXUS_HOME": str(tmp_path), "NEXUS_CHUNK_MAX_CHARS": "700"}
    assert Settings.load(overrides={"chunk_max_chars": 300}, env=env).chunk_max_chars == 300


def test_none_override_and_empty_env_are_ignored(tmp_path: Path) -> None:
    write_config(tmp_path, "chunk_max_chars = 500\n")
    env = {"NEXUS_HOME": str(tmp_path), "NEXUS_CHUNK_MAX_CHARS": "700", "NEXUS_THREADS": ""}
    settings = Settings.load(overrides={"chunk_max_chars": None}, env=env)
    assert settings.chunk_max_chars == 700
    assert settings.threads == 2


def test_home_override_beats_env_home_and_picks_the_config_file(tmp_path: Path) -> None:
    chosen, other = tmp_path / "chosen", tmp_path / "other"
    chosen.mkdir()
    other.mkdir()
    write_config(chosen, "max_pages = 10\n")
    write_config(other, "max_pages = 20\n")
    settings = Settings.load(overrides={"home": chosen}, env={"NEXUS_HOME": str(other)})
    assert settings.home == chosen.resolve()
    assert settings.max_pages == 10


def test_home_in_the_config_file_is_ignored(tmp_path: Path) -> None:
    write_config(tmp_path, f'home = "{tmp_path / "elsewhere"}"\n')
    assert Settings.load(env={"NEXUS_HOME": str(tmp_path)}).home == tmp_path.resolve()


def test_env_strings_are_typed(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    env = {
        "NEXUS_HOME": str(tmp_path),
        "NEXUS_EMBED_BATCH": "8",
        "NEXUS_DATABASE_URL": "postgresql://u@db/nexus",
        "NEXUS_INGEST_ROOTS": os.pathsep.join([str(a), "", str(b)]),
    }
    settings = Settings.load(env=env)
    assert settings.embed_batch == 8
    assert isinstance(settings.embed_batch, int)
    assert settings.database_url == "postgresql://u@db/nexus"
    assert settings.ingest_roots == (a.resolve(), b.resolve())


@pytest.mark.parametrize("raw", ["lots", "12.5", "0", "-3"])
def test_bad_integer_in_env_names_the_setting(tmp_path: Path, raw: str) -> None:
    with pytest.raises(ConfigError, match="chunk_max_chars") as info:
        Settings.load(env={"NEXUS_HOME": str(tmp_path), "NEXUS_CHUNK_MAX_CHARS": raw})
    assert raw in str(info.value)


def test_env_auto_sets_the_embedding_batch_back_to_the_models_own(tmp_path: Path) -> None:
    """``config.toml`` may fix a batch; ``NEXUS_EMBED_BATCH=auto`` gives the choice back to the model."""
    write_config(tmp_path, "embed_batch = 16\n")
    assert Settings.load(env={"NEXUS_HOME": str(tmp_path)}).embed_batch == 16
    assert Settings.load(env={"NEXUS_HOME": str(tmp_path), "NEXUS_EMBED_BATCH": "auto"}).embed_batch is None
    assert Settings.load(env={"NEXUS_HOME": str(tmp_path), "NEXUS_EMBED_BATCH": "AUTO"}).embed_batch is None


def test_bad_integer_in_config_file_names_the_setting(tmp_path: Path) -> None:
    write_config(tmp_path, 'embed_batch = "many"\n')
    with pytest.raises(ConfigError, match="embed_batch"):
        Settings.load(env={"NEXUS_HOME": str(tmp_path)})


def test_bad_integer_override_names_the_setting(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="threads"):
        Settings.load(overrides={"home": tmp_path, "threads": "two"}, env={})


def test_unknown_key_in_config_file(tmp_path: Path) -> None:
    write_config(tmp_path, "chunk_max_char = 500\n")  # typo
    with pytest.raises(ConfigError, match="chunk_max_char'"):
        Settings.load(env={"NEXUS_HOME": str(tmp_path)})


def test_unreadable_config_file(tmp_path: Path) -> None:
    write_config(tmp_path, "chunk_max_chars = = 5\n")
    with pytest.raises(ConfigError, match=r"config\.toml"):
        Settings.load(env={"NEXUS_HOME": str(tmp_path)})


def test_unknown_env_variables_are_ignored(tmp_path: Path) -> None:
    settings = Settings.load(env={"NEXUS_HOME": str(tmp_path), "NEXUS_COLOUR": "blue", "HOME": "/nowhere"})
    assert settings == Settings.load(overrides={"home": tmp_path}, env={})


def test_config_error_is_a_pkg_error() -> None:
    assert issubclass(ConfigError, PkgError)


def test_settings_are_frozen(tmp_path: Path) -> None:
    settings = Settings.load(overrides={"home": tmp_path}, env={})
    with pytest.raises(dataclasses.FrozenInstanceError):
        settings.threads = 4  # type: ignore[misc]


def test_reader_limits_are_read_from_the_environment(tmp_path: Path) -> None:
    env = {"NEXUS_PARSE_TIMEOUT": "2.5", "NEXUS_PARSE_PAGE_TIMEOUT": "0.25", "NEXUS_PARSE_MEMORY_MB": "512"}
    settings = Settings.load(overrides={"home": tmp_path}, env=env)
    assert (settings.parse_timeout, settings.parse_page_timeout, settings.parse_memory_mb) == (2.5, 0.25, 512)
    defaults = Settings.load(overrides={"home": tmp_path}, env={})
    assert (defaults.parse_timeout, defaults.parse_page_timeout, defaults.parse_memory_mb) == (120.0, 20.0, 2048)
    for bad in ("0", "-1", "nan", "inf", "soon"):
        with pytest.raises(ConfigError, match="parse_timeout"):
            Settings.load(overrides={"home": tmp_path}, env={"NEXUS_PARSE_TIMEOUT": bad})


#: The ranking knobs that were module constants (issue #16): setting, a value to set, that value read, the default.
RANKING_KNOBS = [
    ("section_inside_share", "0.5", 0.5, 0.75),
    ("context_boost", "0.25", 0.25, 0.5),
    ("ids_boost", "3", 3.0, 2.0),
    ("absent_misspelt_chars", "6", 6, 4),
    ("absent_share", "0.5", 0.5, 1 / 3),
    ("absent_document_min", "3", 3, 2),
    ("name_min_terms", "3", 3, 2),
    ("name_distinctive_share", "0.5", 0.5, 0.34),
    ("name_margin", "1.5", 1.5, 1.25),
    ("name_max_documents", "2", 2, 3),
    ("name_front_weight", "0.6", 0.6, 0.3),
    ("local_idf_min_weight", "0.1", 0.1, 0.01),
    ("local_idf_max_documents", "1", 1, 3),
    ("twin_same_passage", "0.9", 0.9, 0.8),
    ("twin_stands_for", "1", 1.0, 0.5),
    ("ef_search", "400", 400, 200),
    ("hnsw_m", "24", 24, 16),
    ("hnsw_ef_construction", "300", 300, 200),
    ("agree_margin", "0.1", 0.1, 0.05),
    ("agree_coverage", "0.6", 0.6, 0.5),
    ("dense_seeds", "800", 800, 400),
]
#: Knobs that are a share of something: more than 0, at most 1.
SHARES = {"section_inside_share", "absent_share", "name_distinctive_share", "twin_same_passage", "twin_stands_for"}


@pytest.mark.parametrize(("name", "raw", "value", "default"), RANKING_KNOBS)
def test_ranking_knobs_are_read_from_the_environment(
    tmp_path: Path, name: str, raw: str, value: float, default: float
) -> None:
    settings = Settings.load(overrides={"home": tmp_path}, env={f"NEXUS_{name.upper()}": raw})
    assert getattr(settings, name) == value
    assert type(getattr(settings, name)) is type(default)
    assert getattr(Settings.load(overrides={"home": tmp_path}, env={}), name) == default


@pytest.mark.parametrize(("name", "default"), [(name, default) for name, _, _, default in RANKING_KNOBS])
def test_ranking_knobs_refuse_values_out_of_range(tmp_path: Path, name: str, default: float) -> None:
    if name in SHARES:
        bad = ["0", "-0.5", "1.01", "nan", "inf", "half"]
    elif isinstance(default, int):
        beyond = {"ef_search": ["1001"], "hnsw_m": ["1", "101"], "hnsw_ef_construction": ["3", "1001"]}
        bad = ["0", "-2", "2.5", "many", *beyond.get(name, [])]
        if name == "dense_seeds":  # 0 is off
            bad.remove("0")
            assert Settings.load(overrides={"home": tmp_path}, env={"NEXUS_DENSE_SEEDS": "0"}).dense_seeds == 0
    else:
        bad = ["0", "-1", "nan", "inf", "heavy"]
    for raw in bad:
        with pytest.raises(ConfigError, match=name) as info:
            Settings.load(overrides={"home": tmp_path}, env={f"NEXUS_{name.upper()}": raw})
        assert raw in str(info.value)


def test_an_hnsw_build_beam_under_twice_its_links_is_refused(tmp_path: Path) -> None:
    """pgvector refuses ``ef_construction < 2 * m`` when the index is built: the settings refuse it when read."""
    env = {"NEXUS_HNSW_M": "40", "NEXUS_HNSW_EF_CONSTRUCTION": "79"}
    with pytest.raises(ConfigError, match=r"hnsw_ef_construction.*79.*twice hnsw_m.*40"):
        Settings.load(overrides={"home": tmp_path}, env=env)
    settings = Settings.load(overrides={"home": tmp_path}, env={**env, "NEXUS_HNSW_EF_CONSTRUCTION": "80"})
    assert (settings.index_build.m, settings.index_build.ef_construction) == (40, 80)


def test_every_surface_offers_the_same_ocr_modes() -> None:
    """One list of OCR modes: the enum, the setting, the CLI choices and the REST form (which adds ``server``)."""
    import typing

    from kruschnexus.api import routes
    from kruschnexus.cli.app import cli

    assert OCR_MODES == tuple(m.value for m in OcrMode) == ("auto", "always", "never")
    form = typing.get_type_hints(routes.upload_documents, include_extras=True)["ocr"]
    assert typing.get_args(typing.get_args(form)[0]) == ("server", *OCR_MODES)
    for command in ("ingest", "reingest"):
        option = next(p for p in cli.commands[command].params if p.name == "ocr")
        assert isinstance(option.type, click.Choice) and tuple(option.type.choices) == OCR_MODES, command
