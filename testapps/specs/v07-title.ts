import { always, eventually, extract } from "@antithesishq/bombadil/browser";

const title = extract((state) =>
  state.document.querySelector("h1")?.textContent ?? ""
);

export const has_title = always(() => title.current.trim() !== "");
