import { canonicalJson } from "../../src/engine/key.js";
const v = JSON.parse('{"__proto__":null}');
const w: any = {}; Object.defineProperty(w, "__proto__", { value: null, enumerable: true });
console.log(Object.keys(v), canonicalJson(v), Object.keys(w), canonicalJson(w), JSON.stringify(w));
