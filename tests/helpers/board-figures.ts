import type { Page } from "playwright-core";

/** What the scoreboard page looks like in the browser, measured from the DOM and its computed styles. */
export interface BoardFigures {
  rows: number;
  tableWidth: number;
  /** The table wider than the box that holds it: a horizontal scrollbar. */
  overflowsWidth: boolean;
  /** The document itself taller than the window: someone would have to scroll. */
  documentScrolls: boolean;
  /** The first and the last row shown whole (under the header, inside the board's box and the window). */
  shown: [number, number];
  lastWholeRowBottom: number;
  /** Rows partly shown at the bottom edge: half a row is read as a wrong row. */
  cutRows: number;
  headerVisible: boolean;
  smallestText: { size: number; text: string };
  lowestContrast: { ratio: number; text: string };
  /** The lowest contrast of any text in a cell, per kind of cell (first, solved, tried, pending). */
  cells: Record<string, number>;
  /** The same for the legend's keys, the hidden ones too (partly scored is a key of scored boards). */
  keys: Record<string, number>;
  /** Each kind of cell's mark (the generated content before its main line). */
  marks: Record<string, string>;
  nameFonts: string;
}

/**
 * Run in the page (page.evaluate), as text: the type-checker knows no DOM here. Contrast is WCAG 2's: the relative
 * luminance of sRGB, the text's colour composed over its background (the element's and its ancestors' colours
 * down to the first opaque one), with its alpha and its ancestors' opacity.
 */
export const BOARD_FIGURES = String.raw`(() => {
  const parse = (colour) => {
    const [r, g, b, a = 1] = (colour.match(/[\d.]+/g) ?? ["0", "0", "0", "0"]).map(Number);
    return [r, g, b, a];
  };
  const over = (top, under) => [0, 1, 2].map((i) => top[i] * top[3] + under[i] * (1 - top[3])).concat(1);
  const luminance = (c) => {
    const [r, g, b] = c.slice(0, 3).map((v) => {
      const s = v / 255;
      return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const backgroundOf = (node) => {
    const layers = [];
    for (let at = node; at; at = at.parentElement) {
      const layer = parse(getComputedStyle(at).backgroundColor);
      if (layer[3] > 0) layers.push(layer);
      if (layer[3] >= 1) break;
    }
    return layers.reduceRight((under, top) => over(top, under), [255, 255, 255, 1]);
  };
  const contrastOf = (node, pseudo) => {
    let opacity = 1;
    for (let at = node; at; at = at.parentElement) opacity *= Number(getComputedStyle(at).opacity);
    const colour = parse(getComputedStyle(node, pseudo).color);
    const background = backgroundOf(node);
    const text = over([colour[0], colour[1], colour[2], colour[3] * opacity], background);
    const [light, dark] = [luminance(text), luminance(background)].sort((x, y) => y - x);
    return (light + 0.05) / (dark + 0.05);
  };
  const generated = (node, pseudo) => {
    const content = getComputedStyle(node, pseudo).content;
    return content === "none" || content === "normal" || content === '""' ? "" : content;
  };
  // Every visible element with text of its own or generated text, with that text and its pseudo-element.
  const texts = [];
  for (const node of document.body.querySelectorAll("*")) {
    if (node.tagName === "SCRIPT" || !node.checkVisibility({ opacityProperty: true, visibilityProperty: true }))
      continue;
    const own = [...node.childNodes].filter((child) => child.nodeType === Node.TEXT_NODE);
    const text = own.map((child) => child.textContent).join("").trim();
    if (text) texts.push({ node, text });
    for (const pseudo of ["::before", "::after"])
      if (generated(node, pseudo)) texts.push({ node, pseudo, text: generated(node, pseudo) });
  }
  const smallestText = { size: Infinity, text: "" };
  const lowestContrast = { ratio: Infinity, text: "" };
  for (const { node, pseudo, text } of texts) {
    const size = parseFloat(getComputedStyle(node, pseudo).fontSize);
    if (size < smallestText.size) Object.assign(smallestText, { size, text });
    const ratio = contrastOf(node, pseudo);
    if (ratio < lowestContrast.ratio) Object.assign(lowestContrast, { ratio, text });
  }
  const kindOf = (node) =>
    ["first", "solved", "partial", "tried", "pending"].find((kind) => node.classList.contains(kind)) ?? "";
  const cells = {};
  const marks = {};
  for (const cell of document.querySelectorAll("td.cell")) {
    const kind = kindOf(cell);
    if (!kind) continue;
    for (const { node, pseudo } of texts.filter((text) => cell.contains(text.node)))
      cells[kind] = Math.min(cells[kind] ?? Infinity, contrastOf(node, pseudo));
    const main = cell.querySelector(".main");
    marks[kind] = main ? generated(main, "::before") : "";
  }
  const keys = {};
  for (const key of document.querySelectorAll(".key")) if (kindOf(key)) keys[kindOf(key)] = contrastOf(key);

  const table = document.querySelector("table");
  // A header cell, not the thead: the cells are what stays at the top (sticky) as the board scrolls.
  const head = document.querySelector("thead th").getBoundingClientRect();
  let box = table.parentElement;
  while (box !== document.body && !/auto|scroll|hidden/.test(getComputedStyle(box).overflowY)) box = box.parentElement;
  const boxRect = box === document.body ? { top: 0, bottom: innerHeight } : box.getBoundingClientRect();
  const top = Math.max(boxRect.top, head.bottom);
  const bottom = Math.min(boxRect.bottom, innerHeight);
  const rows = [...document.querySelectorAll("#rows tr")].map((row) => row.getBoundingClientRect());
  const whole = rows.flatMap((rect, i) => (rect.top >= top - 1 && rect.bottom <= bottom + 1 ? [i] : []));
  const last = whole.at(-1) ?? -1;
  const width = table.getBoundingClientRect().width;
  return {
    rows: rows.length,
    tableWidth: width,
    overflowsWidth: width > (box === document.body ? innerWidth : box.clientWidth) + 1,
    documentScrolls: document.documentElement.scrollHeight > innerHeight + 1,
    shown: [whole[0] ?? -1, last],
    lastWholeRowBottom: last >= 0 ? rows[last].bottom : 0,
    cutRows: rows.filter((rect) => rect.top < bottom - 1 && rect.bottom > bottom + 1).length,
    headerVisible: head.top >= 0 && head.bottom <= innerHeight,
    smallestText,
    lowestContrast,
    cells,
    keys,
    marks,
    nameFonts: getComputedStyle(document.querySelector("td.name")).fontFamily,
  };
})()`;

let families: string[] | undefined;
/** The families of this machine's fonts that cover Chinese (fc-list :lang=zh), each under all of its names. */
export function cjkFamilies(): string[] {
  families ??= Bun.which("fc-list")
    ? new TextDecoder()
        .decode(Bun.spawnSync(["fc-list", ":lang=zh", "family"]).stdout)
        .split(/[\n,]/)
        .map((name) => name.trim())
        .filter(Boolean)
    : [];
  return families;
}

/** The fonts Chromium drew an element's text with (DevTools' "rendered fonts"), by family. */
export async function platformFonts(page: Page, selector: string): Promise<string[]> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("DOM.enable");
  await cdp.send("CSS.enable");
  const { root } = await cdp.send("DOM.getDocument");
  const { nodeId } = await cdp.send("DOM.querySelector", { nodeId: root.nodeId, selector });
  const { fonts } = await cdp.send("CSS.getPlatformFontsForNode", { nodeId });
  await cdp.detach();
  return fonts.map((font) => font.familyName);
}
