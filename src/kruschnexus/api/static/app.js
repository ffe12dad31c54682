// KruschNexus web page: search a workspace, show hits, show the cited span on the page image.
// Plain DOM, no build step. Every value from the server is inserted as text, never as HTML.
"use strict";

const $ = (id) => document.getElementById(id);
const api = (path) => "/v1" + path;
let lastHits = [];
let documents = new Map(); // doc_id -> DocumentInfo of the chosen workspace
let current = null; // what the viewer shows: { workspace, hit, number }

function authHeaders() {
  const token = $("token").value.trim() || sessionStorage.getItem("nexus-token") || "";
  return token ? { Authorization: "Bearer " + token } : {};
}

async function getJson(url) {
  const response = await fetch(url, { headers: authHeaders() });
  const body = await response.json().catch(() => null);
  if (!response.ok) {
    throw new Error(body && body.detail ? body.detail : response.status + " " + response.statusText);
  }
  return body;
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

async function loadWorkspaces() {
  const select = $("workspace");
  try {
    const workspaces = await getJson(api("/workspaces"));
    select.replaceChildren(...workspaces.map((w) => {
      const option = el("option", null, w.name + " (" + w.documents + " documents)");
      option.value = w.name;
      return option;
    }));
    const wanted = new URLSearchParams(location.search).get("workspace");
    if (wanted) select.value = wanted;
    await loadDocuments(select.value);
    if (!workspaces.length) showStatus("No workspace yet: ingest documents first (nexus ingest FILE -w NAME).", false);
  } catch (error) {
    showStatus("Cannot list workspaces: " + error.message, true);
  }
}

async function loadDocuments(workspace) {
  // The document list and the filter choices come from the workspace's stored documents.
  documents = new Map();
  $("documents").replaceChildren();
  for (const id of ["filter-doc", "filter-type"]) $(id).replaceChildren($(id).options[0]);
  if (!workspace) return;
  let found = [];
  try {
    found = await getJson(api("/workspaces/" + encodeURIComponent(workspace) + "/documents"));
  } catch (error) {
    return; // an empty workspace, or no right to list it: the search itself will say
  }
  const types = new Set();
  for (const doc of found) {
    documents.set(doc.doc_id, doc);
    if (doc.doc_type) types.add(doc.doc_type);
    const pick = el("button", null, doc.source);
    pick.type = "button";
    pick.title = "Search this document only";
    pick.addEventListener("click", () => { $("filter-doc").value = doc.source; $("query").focus(); });
    const unit = doc.kind === "pdf" ? " pages" : " units";
    const item = el("li");
    item.append(pick, el("span", "muted", " · " + doc.kind + ", " + doc.page_count + unit));
    $("documents").append(item);
    const option = el("option", null, doc.source);
    option.value = doc.source;
    $("filter-doc").append(option);
  }
  for (const type of [...types].sort()) {
    const option = el("option", null, type);
    option.value = type;
    $("filter-type").append(option);
  }
  $("doc-list").querySelector("summary").textContent = "Documents (" + found.length + ")";
}

function withFilters(query) {
  // The filter controls are the query operators, written out (so the status line shows what was searched).
  const quote = (value) => (/[\s"]/.test(value) ? '"' + value.replace(/"/g, "") + '"' : value);
  const parts = [query.trim()];
  if ($("filter-doc").value) parts.push("doc:" + quote($("filter-doc").value));
  if ($("filter-type").value) parts.push("doc_type:" + quote($("filter-type").value));
  const pages = $("filter-pages").value.trim();
  if (pages) {
    if (!/^[0-9]+(-[0-9]+)?$/.test(pages)) throw new Error("Pages: a page number or a range such as 2-5");
    parts.push("page:" + pages);
  }
  return parts.join(" ");
}

function showStatus(message, isError) {
  const status = $("status");
  status.textContent = message;
  status.className = isError ? "error" : "muted";
  status.hidden = false;
}

async function search(event) {
  event.preventDefault();
  const workspace = $("workspace").value;
  let q;
  try {
    q = withFilters($("query").value);
  } catch (error) {
    showStatus(error.message, true);
    return;
  }
  const params = new URLSearchParams({ q: q, k: $("k").value || "5" });
  $("hits").replaceChildren();
  $("viewer").hidden = true;
  showStatus("Searching…", false);
  try {
    const result = await getJson(api("/workspaces/" + encodeURIComponent(workspace) + "/search?" + params));
    lastHits = result.hits;
    if (!result.hits.length) {
      showAbstain(result.abstain);
      return;
    }
    delete $("status").dataset.abstain;
    const noun = result.hits.length === 1 ? " hit" : " hits";
    showStatus(result.hits.length + noun + " for " + JSON.stringify(result.query), false);
    $("hits").replaceChildren(...result.hits.map((hit, index) => hitItem(workspace, hit, index)));
  } catch (error) {
    showStatus(error.message, true);
  }
}

function showAbstain(why) {
  // Fail-closed: say in plain words that nothing was close enough, then the figures for whoever wants them.
  showStatus("No answer: no passage in this workspace matches the question closely enough, so none is shown" +
    " rather than a weak one. Try other words, or name the document or section.", false);
  if (why) {
    const best = why.best_cosine === null ? "none" : why.best_cosine.toFixed(3);
    $("status").append(el("span", "detail", "Why: " + why.reason + "; " + why.candidates +
      " candidates, best similarity " + best + " against the floor " + why.floor.toFixed(2) + "."));
  }
  $("status").dataset.abstain = "1";
}

function hitItem(workspace, hit, index) {
  const item = el("li", "hit");
  item.dataset.index = String(index);
  const open = el("button", "open");
  open.type = "button";
  open.append(el("span", "rank", "#" + (index + 1)), el("span", "citation", hit.citation));
  open.setAttribute("aria-label", "Show hit " + (index + 1) + ": " + hit.citation);
  item.append(open);
  const confidence = hit.confidence === null ? "n/a" : hit.confidence.toFixed(2);
  const numbers = el("div", "numbers", "score " + hit.score.toFixed(4) + " · confidence " + confidence +
    " · chars " + hit.char_start + "–" + hit.char_end + (hit.used_ocr ? " · OCR" : ""));
  numbers.title = "Hits are ranked by score. Confidence is the calibrated chance that this span answers the" +
    " question, judged for each hit on its own, so it need not fall with the rank.";
  item.append(numbers);
  item.append(el("div", "reasons", hit.match_reasons.join(", ")));
  item.append(el("div", "snippet", hit.text.length > 400 ? hit.text.slice(0, 399) + "…" : hit.text));
  item.addEventListener("click", () => {
    document.querySelectorAll(".hit.selected").forEach((n) => n.classList.remove("selected"));
    document.querySelectorAll(".hit .open").forEach((n) => n.removeAttribute("aria-current"));
    item.classList.add("selected");
    open.setAttribute("aria-current", "true");
    showHit(workspace, hit).then(() => $("viewer").focus()).catch((error) => showStatus(error.message, true));
  });
  return item;
}

function moveFocus(event) {
  // Up and down arrows (and Home/End) move between the hits; Enter or Space opens one (they are buttons).
  const buttons = Array.from(document.querySelectorAll("#hits .hit .open"));
  const at = buttons.indexOf(document.activeElement);
  if (at < 0 || !["ArrowDown", "ArrowUp", "Home", "End"].includes(event.key)) return;
  event.preventDefault();
  const next = { ArrowDown: Math.min(at + 1, buttons.length - 1), ArrowUp: Math.max(at - 1, 0),
    Home: 0, End: buttons.length - 1 }[event.key];
  buttons[next].focus();
}

function documentBase(workspace, docId) {
  return api("/workspaces/" + encodeURIComponent(workspace) + "/documents/" + docId);
}

async function showHit(workspace, hit) {
  const base = documentBase(workspace, hit.doc_id);
  const number = hit.page_number !== null ? hit.page_number : await unitNumber(base, hit);
  current = { workspace: workspace, hit: hit, number: number };
  $("viewer-title").textContent = hit.citation;
  $("viewer-meta").textContent = hit.document + " (version " + hit.version + ")" + (hit.page_number !== null ? " · page " + hit.page_number + " of the PDF" : "") +
    " · characters " + hit.char_start + "–" + hit.char_end + " of the page text";
  await showPage(number, hit);
}

async function showPage(number, hit) {
  // One page (or unit) of the current document; the hit's span highlighted when it is on it.
  const base = documentBase(current.workspace, current.hit.doc_id);
  const [page, spans] = await Promise.all([
    getJson(base + "/pages/" + number), getJson(base + "/pages/" + number + "/spans"),
  ]);
  current.number = number;
  $("viewer").hidden = false;
  delete $("overlay").dataset.ready;
  delete $("unit-text").dataset.ready;
  updateToolbar();
  if (current.hit.page_number === null) {
    showUnit(page, hit);
    return;
  }
  if (!hit) {
    $("viewer-title").textContent = current.hit.source + " p." + number;
    $("viewer-meta").textContent = current.hit.source + " · page " + number + " of the PDF · the cited span is on page " +
      current.hit.page_number;
  }
  $("unit-text").hidden = true;
  $("page").hidden = false;
  const image = $("page-image");
  const overlay = $("overlay");
  overlay.replaceChildren();
  image.onload = () => drawBoxes(page, hit, spans);
  // Fetched with the token (an <img src> cannot send headers), then shown from a blob URL.
  const response = await fetch(base + "/pages/" + number + "/image?dpi=110", { headers: authHeaders() });
  if (!response.ok) throw new Error("page image: " + response.status + " " + response.statusText);
  if (image.src.startsWith("blob:")) URL.revokeObjectURL(image.src);
  image.src = URL.createObjectURL(await response.blob());
}

function updateToolbar() {
  const paged = current.hit.page_number !== null;
  const doc = documents.get(current.hit.doc_id);
  const last = doc ? doc.page_count : current.number;
  $("prev-page").hidden = $("next-page").hidden = !paged;
  $("prev-page").disabled = current.number <= 1;
  $("next-page").disabled = current.number >= last;
  $("toolbar-note").textContent = "";
  const original = $("original");
  if (original.href.startsWith("blob:")) URL.revokeObjectURL(original.href);
  original.href = "#";
  delete original.dataset.ready;
}

function turnPage(step) {
  const number = current.number + step;
  const hit = number === current.hit.page_number ? current.hit : null;
  showPage(number, hit).catch((error) => showStatus(error.message, true));
}

async function copyCitation() {
  const text = current.hit.citation + "\n\u201c" + current.hit.text + "\u201d";
  try {
    await navigator.clipboard.writeText(text);
    $("toolbar-note").textContent = "Citation copied.";
  } catch (error) {
    $("toolbar-note").textContent = "Copying is not allowed here; select the citation above instead.";
  }
}

async function openOriginal() {
  // The original bytes, fetched with the token, then offered as a download under the document's own name.
  const original = $("original");
  const response = await fetch(documentBase(current.workspace, current.hit.doc_id) + "/original", { headers: authHeaders() });
  if (!response.ok) throw new Error("original file: " + response.status + " " + response.statusText);
  original.href = URL.createObjectURL(await response.blob());
  original.download = current.hit.source;
  original.dataset.ready = "1";
  original.click(); // now a plain link to the bytes: this click downloads them
}

function openOriginalSafely(event) {
  if ($("original").dataset.ready === "1") return;
  event.preventDefault();
  openOriginal().catch((error) => showStatus(error.message, true));
}

async function unitNumber(base, hit) {
  // An unpaged hit names its unit by locator; the API maps it to the unit's number.
  const unit = await getJson(base + "/units?" + new URLSearchParams({ locator: JSON.stringify(hit.locator) }));
  return unit.page_number;
}

function drawBoxes(page, hit, spans) {
  const overlay = $("overlay");
  const place = (box, className) => {
    const [x, y, w, h] = box;
    const node = el("div", "box " + className);
    node.style.left = (100 * x / page.width) + "%";
    node.style.top = (100 * y / page.height) + "%";
    node.style.width = (100 * w / page.width) + "%";
    node.style.height = (100 * h / page.height) + "%";
    overlay.append(node);
  };
  for (const span of spans) {
    if (hit && span.char_start === hit.char_start && span.char_end === hit.char_end) continue;
    for (const box of span.boxes || []) place(box, "nb");
  }
  for (const box of (hit && hit.boxes) || []) place(box, "hl");
  const first = overlay.querySelector(".box.hl");
  if (first) first.scrollIntoView({ block: "center" });
  overlay.dataset.ready = "1";
}

function showUnit(page, hit) {
  $("page").hidden = true;
  const pre = $("unit-text");
  pre.hidden = false;
  const text = page.text;
  pre.replaceChildren(
    el("span", "neighbour", text.slice(0, hit.char_start)),
    el("mark", "hl", text.slice(hit.char_start, hit.char_end)),
    el("span", "neighbour", text.slice(hit.char_end)),
  );
  pre.querySelector("mark").scrollIntoView({ block: "center" });
  pre.dataset.ready = "1";
}

$("token").value = sessionStorage.getItem("nexus-token") || "";
$("token").addEventListener("change", () => {
  sessionStorage.setItem("nexus-token", $("token").value.trim());
  loadWorkspaces();
});
$("search-form").addEventListener("submit", search);
$("workspace").addEventListener("change", () => loadDocuments($("workspace").value));
$("prev-page").addEventListener("click", () => turnPage(-1));
$("next-page").addEventListener("click", () => turnPage(1));
$("copy-citation").addEventListener("click", copyCitation);
$("original").addEventListener("click", openOriginalSafely);
$("hits").addEventListener("keydown", moveFocus);
loadWorkspaces();
