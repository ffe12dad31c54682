"""The reader process: same pages as in-process reading, reused across files, killed at the time limit (with its
Tesseract processes), stopped at the memory cap, a crash contained, each failure a ParseError naming the file."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import psutil
import pytest

from kruschnexus.chunk.chunker import chunk_page
from kruschnexus.chunk.sections import SectionTracker
from kruschnexus.config import OcrMode
from kruschnexus.errors import ParseError, UnsupportedFormatError
from kruschnexus.extract import ReadOptions, open_source
from kruschnexus.parse.ocr import tesseract_version
from kruschnexus.worker import ReaderBugError, ReadLimits, ReadWorker
from kruschnexus.worker import reader as reader_module
from tests.conftest import FIXTURES
from tests.pdfgen import long_agreement

NO_OCR = ReadOptions(ocr=OcrMode.NEVER)
#: Seconds a stopped read may run past its limit (killing and reaping the reader) on a busy machine.
SLACK = 5.0
READ_ALIKE = ["sample_contract.pdf", "table_rent_schedule.pdf", "office_lease.docx", "html_filing.html"]


def _live_members(group: int) -> list[psutil.Process]:
    members = []
    for process in psutil.process_iter(["status"]):
        try:
            if os.getpgid(process.pid) == group and process.info["status"] != psutil.STATUS_ZOMBIE:
                members.append(process)
        except (ProcessLookupError, psutil.NoSuchProcess):
            continue
    return members


def _gone_within(group: int, seconds: float) -> list[psutil.Process]:
    """The group's live members once they are all gone, or after ``seconds`` (a SIGKILL takes effect when the
    kernel schedules it: on a loaded machine, not in the same instant)."""
    deadline = time.monotonic() + seconds
    while (members := _live_members(group)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return members


def test_pages_and_spans_are_what_in_process_reading_gives() -> None:
    with ReadWorker() as worker:
        for name in READ_ALIKE:
            with worker.open(FIXTURES / name, options=NO_OCR, chunk_max_chars=900) as remote:
                got = list(remote.chunked_pages())
                assert remote.kind and remote.page_count == len(got)
            with open_source(FIXTURES / name, options=NO_OCR) as local:
                tracker = SectionTracker()
                want = [(page, chunk_page(page, tracker, 900)) for page in local.pages()]
            assert got == want, name
        assert worker.started == 1, "one reader process serves every file"


def test_a_file_left_half_read_leaves_the_reader_ready_for_the_next() -> None:
    with ReadWorker() as worker:
        with worker.open(FIXTURES / "sample_contract.pdf", options=NO_OCR) as source:
            first = next(iter(source.pages()))
        assert first.number == 1
        with worker.open(FIXTURES / "html_filing.html") as source:
            assert len(list(source.pages())) == source.page_count > 1
        assert worker.started == 1


def test_reader_errors_come_back_as_parse_errors_for_the_file(tmp_path: Path) -> None:
    fake = tmp_path / "fake.pdf"
    fake.write_bytes(b"hello, not a PDF")
    odd = tmp_path / "notes.xyz"
    odd.write_bytes(b"x")
    with ReadWorker() as worker:
        with pytest.raises(ParseError) as caught:
            worker.open(fake)
        assert caught.value.path == str(fake) and "content is not" in caught.value.reason
        with pytest.raises(UnsupportedFormatError):
            worker.open(odd)
        assert worker.started == 1, "a clean error does not cost the reader"


@pytest.mark.skipif(tesseract_version() is None, reason="needs Tesseract")
def test_over_the_time_limit_the_reader_and_its_tesseract_are_killed() -> None:
    with ReadWorker(ReadLimits(timeout=0.5)) as worker:
        worker.start()
        source = worker.open(FIXTURES / "scanned_lease.pdf", options=ReadOptions(ocr=OcrMode.ALWAYS))
        group = worker.pid
        assert group is not None
        started = time.monotonic()
        with pytest.raises(ParseError) as caught, source:
            list(source.pages())
        assert time.monotonic() - started < 0.5 + SLACK
        assert caught.value.reason == "took longer than 0.5 s to read; stopped"
        assert caught.value.path == str(FIXTURES / "scanned_lease.pdf") and caught.value.page == 1
        assert _gone_within(group, 5.0) == [], "Tesseract processes of the killed reader are gone too"
        with worker.open(FIXTURES / "ligatures.pdf", options=NO_OCR) as source:
            assert list(source.pages())
        assert worker.started == 2


def test_a_long_document_gets_a_budget_per_page_but_not_more(tmp_path: Path) -> None:
    # Long enough that reading it whole takes well over the budget on any machine (150 pages once did not).
    pdf = long_agreement(tmp_path / "long.pdf", 600)
    with ReadWorker(ReadLimits(timeout=2.0, page_timeout=0.001)) as worker:
        with pytest.raises(ParseError) as caught, worker.open(pdf, options=NO_OCR) as source:
            list(source.pages())
    reason = caught.value.reason
    assert reason == "took longer than 2.6 s to read (2 s + 0.001 s for each of 600 pages); stopped"
    assert caught.value.page is not None and 1 < caught.value.page < 600


def test_a_crashed_reader_is_a_clean_error_and_is_replaced() -> None:
    with ReadWorker() as worker:
        source = worker.open(FIXTURES / "sample_contract.pdf", options=NO_OCR)
        assert worker.pid is not None
        os.kill(worker.pid, signal.SIGSEGV)
        with pytest.raises(ParseError) as caught, source:
            list(source.pages())
        assert caught.value.reason == "the reader crashed (signal 11, SIGSEGV); stopped"
        with worker.open(FIXTURES / "office_lease.docx") as source:
            assert list(source.pages())
        assert worker.started == 2


def test_over_the_memory_cap_is_a_clean_error(tmp_path: Path) -> None:
    big = tmp_path / "big.html"
    big.write_text("<p>" + "word " * 8_000_000 + "</p>", encoding="utf-8")
    with ReadWorker(ReadLimits(memory_mb=400)) as worker:
        with pytest.raises(ParseError) as caught:
            worker.open(big)
        assert caught.value.reason == "needed more than 400 MB to read; stopped"
        with worker.open(FIXTURES / "html_filing.html") as source:
            assert list(source.pages())


#: A reader whose file read fills most of its address space, then dies as a C library does when an allocation fails
#: under the cap (pdfium's out-of-memory handler faults on purpose); it works a moment at that size first, as a real
#: read that grows does, so the parent notes its peak.
_DIES_AT_CAP = (
    "import os, signal, sys, time\n"
    "from kruschnexus.worker import child\n"
    "def at_cap(*args, **kwargs):\n"
    "    size = next(int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmSize')) * 1024\n"
    "    hog = bytearray(int(sys.argv[2]) * 2**20 - size - 30 * 2**20)  # all but 30 MB of the cap\n"
    "    hog[:: 4096] = bytes(len(range(0, len(hog), 4096)))\n"
    "    time.sleep(0.5)\n"
    "    os.kill(os.getpid(), signal.SIGSEGV)\n"
    "child._serve_file = at_cap\n"
    "child.main(sys.argv[1:])\n"
)


def test_a_reader_that_dies_by_a_signal_at_its_memory_cap_is_a_memory_stop(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader_module, "_BOOT", _DIES_AT_CAP)
    with ReadWorker(ReadLimits(memory_mb=600)) as worker:
        with pytest.raises(ParseError) as caught:
            worker.open(FIXTURES / "sample_contract.pdf", options=NO_OCR)
    assert caught.value.reason == "needed more than 600 MB to read; stopped"


def test_closing_stops_the_reader() -> None:
    worker = ReadWorker()
    worker.start()
    pid = worker.pid
    assert pid is not None
    worker.close()
    assert worker.pid is None
    assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


def test_a_reader_killed_while_starting_is_reported_as_killed_and_replaced() -> None:
    """A reader killed before it is ready (an operator, the OOM killer) fails that file at once with the signal,
    not after the start timeout with "did not start"; the next file gets a new reader."""
    with ReadWorker() as worker:
        worker.start()
        assert worker.pid is not None
        os.kill(worker.pid, signal.SIGKILL)
        started = time.monotonic()
        try:  # a death seen before the request is sent just starts another reader (a loaded machine is that fast)
            with worker.open(FIXTURES / "sample_contract.pdf", options=NO_OCR) as source:
                assert source.page_count >= 1
        except ParseError as caught:
            assert caught.reason == "while starting, the reader crashed (signal 9, SIGKILL); stopped"
        assert time.monotonic() - started < SLACK
        with worker.open(FIXTURES / "sample_contract.pdf", options=NO_OCR) as source:
            assert source.page_count >= 1
        assert worker.started == 2


def test_answers_are_unpickled_with_an_allow_list() -> None:
    """The ingester takes back only the reader's answer classes and the page types: a page comes back as sent; a
    bare tuple, or a pickle naming any other callable (``os.system``), is refused."""
    import pickle

    from kruschnexus.worker.messages import Opened, PageRead

    with open_source(FIXTURES / "sample_contract.pdf", options=NO_OCR) as source:
        page = next(iter(source.pages()))
        chunks = chunk_page(page, SectionTracker(), 900)
    answer = reader_module._loads(pickle.dumps(PageRead(page, chunks)))
    assert isinstance(answer, PageRead) and answer.page == page and answer.chunks == chunks
    opened = Opened("pdf", 3, True, {"producer": "x", "pages": [1, 2]}, None)
    assert reader_module._loads(pickle.dumps(opened)) == opened
    with pytest.raises(pickle.UnpicklingError, match="is an answer"):
        reader_module._loads(pickle.dumps(("page", page, chunks)))

    class Hostile:
        def __reduce__(self) -> tuple[object, tuple[str]]:
            return (os.system, ("true",))

    with pytest.raises(pickle.UnpicklingError, match="may not contain"):
        reader_module._loads(pickle.dumps(PageRead(Hostile(), None)))  # type: ignore[arg-type]


#: A reader whose file fails on its third page, after the ingester asked for pages ahead of it.
_FAILS_ON_PAGE_THREE = (
    "import sys\n"
    "from kruschnexus.errors import ParseError\n"
    "from kruschnexus.worker import child\n"
    "real = child.open_source\n"
    "class Failing:\n"
    "    def __init__(self, source): self.source = source\n"
    "    def __enter__(self): self.source.__enter__(); return self\n"
    "    def __exit__(self, *exc): return self.source.__exit__(*exc)\n"
    "    def __getattr__(self, name): return getattr(self.source, name)\n"
    "    def pages(self):\n"
    "        for page in self.source.pages():\n"
    "            if page.number == 3:\n"
    "                raise ParseError(self.source.path, 'page three is damaged', 3)\n"
    "            yield page\n"
    "def failing(path, *args, **kwargs):\n"
    "    source = real(path, *args, **kwargs)\n"
    "    return Failing(source) if str(path).endswith('long.pdf') else source\n"
    "child.open_source = failing\n"
    "child.main(sys.argv[1:])\n"
)


def test_pages_asked_ahead_of_a_failure_leave_the_reader_serving_the_next_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The ingester asks for several pages ahead (reading overlaps embedding); when the file fails on a page, the
    pages read before it arrive in order, the failure names its page, and the requests still queued are dropped by
    the same reader, which reads the next file."""
    monkeypatch.setattr(reader_module, "_BOOT", _FAILS_ON_PAGE_THREE)
    path = long_agreement(tmp_path / "long.pdf", 6)
    with ReadWorker() as worker:
        seen: list[int] = []
        with pytest.raises(ParseError) as caught, worker.open(path, options=NO_OCR) as remote:
            seen.extend(page.number for page in remote.pages())
        assert seen == [1, 2] and caught.value.page == 3 and "page three" in caught.value.reason
        pid = worker.pid
        with worker.open(FIXTURES / "sample_contract.pdf", options=NO_OCR) as remote:
            assert [p.number for p in remote.pages()] == list(range(1, remote.page_count + 1))
        assert worker.pid == pid, "the same reader process"


#: A reader whose spans of the second page cannot be pickled (as a page too large to pickle under the memory cap
#: cannot be): the failure happens in the thread that sends pages.
_UNPICKLABLE_PAGE_TWO = (
    "import sys\n"
    "from kruschnexus.worker import child\n"
    "real = child.chunk_page\n"
    "def chunk_page(page, tracker, max_chars):\n"
    "    chunks = real(page, tracker, max_chars)\n"
    "    return [*chunks, lambda: None] if page.number == 2 else chunks\n"
    "child.chunk_page = chunk_page\n"
    "child.main(sys.argv[1:])\n"
)


def test_a_page_that_cannot_be_sent_is_a_reader_bug_at_once(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Pages are sent from a thread of the reader's own; what stops that thread reaches the ingester as the reader's
    answer (here a bug with its traceback), not as a reader that stops answering until the time limit."""
    monkeypatch.setattr(reader_module, "_BOOT", _UNPICKLABLE_PAGE_TWO)
    path = long_agreement(tmp_path / "long.pdf", 6)
    with ReadWorker(ReadLimits(timeout=600)) as worker:  # had the reader stopped answering: a timeout, not a bug
        seen: list[int] = []
        with pytest.raises(ReaderBugError) as caught:
            with worker.open(path, options=NO_OCR, chunk_max_chars=900) as remote:
                seen.extend(page.number for page, _ in remote.chunked_pages())
        assert seen == [1] and "pickle" in caught.value.remote_traceback.lower(), caught.value.remote_traceback
        with worker.open(FIXTURES / "sample_contract.pdf", options=NO_OCR) as remote:
            assert list(remote.pages())
