// Types of "mnemo/browser": the web build's API with the wasm initialised.
export * from "./mnemo.js";
