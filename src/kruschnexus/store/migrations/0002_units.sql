-- 0002_units: unpaged formats (DOCX, CSV, HTML, text) store one row per unit in `pages`; `locator` says where
-- the unit is (NULL for a physical PDF page, whose page_number is then the physical page).
ALTER TABLE pages ADD COLUMN locator jsonb;
-- What the reader detected (text encoding, CSV dialect, OCR engine, ...), recorded rather than silently guessed.
ALTER TABLE documents ADD COLUMN meta jsonb NOT NULL DEFAULT '{}'::jsonb;
