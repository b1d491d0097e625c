// The action generator example of Bombadil's manual ("Action generators": clicks in the
// centre of a canvas), unchanged, with a property on what the clicks draw. The canvas of
// the `/props/canvas/*` pages reacts to no control wayfarer's explorer finds: only this
// generator reaches it.
import { extract, actions, always } from "@antithesishq/bombadil";
export * from "@antithesishq/bombadil/defaults";

const canvasCenter = extract((state) => {
    const canvas = state.document.querySelector("#my-canvas");
    if (!canvas) {
        return null;
    }
    const rect = canvas.getBoundingClientRect();
    if (rect.width > 0 && rect.height > 0) {
        return {
            x: rect.left + rect.width / 2,
            y: rect.top + rect.height / 2,
        };
    }
    return null;
});


export const clickCanvas = actions(() => {
    const point = canvasCenter.current;
    return point ? [{ Click: { name: "canvas", point } }] : [];
});

const marks = extract((state) =>
    Number(state.document.querySelector("#marks")?.getAttribute("data-count") ?? 0),
);

export const at_most_three_marks = always(() => marks.current <= 3);
