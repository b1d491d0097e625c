export * from "@antithesishq/bombadil/browser/defaults";
