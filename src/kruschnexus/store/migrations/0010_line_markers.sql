-- 0010_line_markers: the section markers that open a line of a span's text (`12.1`, `article iv`, `exhibit a`; the
-- lexical analysis' `line_markers`), stored with the span when it is written. A question that names a section finds
-- the spans where a line opens it from this array's index, with the very test fusion applies, instead of a regular
-- expression the text's trigrams cannot answer (they do not see where lines start: at 10^6 spans `Section 9.5(b)`
-- rechecked some 15,000 spans that only cite 9.5(b)).
-- Spans written before this migration hold NULL: the regular expression still answers for them (found through the
-- partial index below, empty once every span is marked) until `nexus reindex` marks them.
ALTER TABLE spans ADD COLUMN line_markers text[];
CREATE INDEX spans_line_markers_gin ON spans USING gin (line_markers);
CREATE INDEX spans_unmarked ON spans (workspace) WHERE line_markers IS NULL;
