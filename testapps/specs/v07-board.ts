// A specification in Bombadil 0.7's language: its `/browser` modules, `weighted` with a
// generator inside, `DoubleClick` at an element's fingerprint with a delay range,
// `PressKey`, and a property on `navigationHistory`. `/props/board/*` has a board that
// only these generators reach.
import {
  actions,
  always,
  extract,
  getFingerprint,
  weighted,
} from "@antithesishq/bombadil/browser";
export * from "@antithesishq/bombadil/browser/defaults";

const board = extract((state) => {
  const el = state.document.querySelector("#board");
  if (!el) return null;
  const r = el.getBoundingClientRect();
  if (r.width <= 0 || r.height <= 0) return null;
  return {
    fingerprint: getFingerprint(el),
    point: { x: r.left + r.width / 2, y: r.top + r.height / 2 },
  };
});

export const boardActions = weighted([
  [
    2,
    actions(() => {
      const b = board.current;
      return b
        ? [{ DoubleClick: { fingerprint: b.fingerprint, point: b.point, delayMillis: [0, 40] } }]
        : [];
    }),
  ],
  [1, { PressKey: { code: 46 } }],
]);

const clearedEntries = extract((state) => {
  const h = state.navigationHistory;
  return [...h.back, h.current].filter((e) => e.url.includes("#cleared")).length;
});

export const fewer_than_three_cleared_entries = always(() => clearedEntries.current < 3);
