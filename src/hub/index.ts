/** Environments as npm packages: resolve a spec (path, package, name@version, git URL), install, scaffold, check, suites. */
export { parseEnvSpec, type EnvSpec } from "./spec.js";
export { resolveEnvSpec, loadEnvironmentSpec, type ResolvedEnv, type ResolveOptions } from "./resolve.js";
export { installEnv, defaultEnvsDir, findInstalled, type InstalledEnv } from "./install.js";
export { readEnvManifest, describePackage, packageLabel, type EnvManifest, type EnvPackage } from "./package.js";
export { initEnvPackage } from "./init.js";
export { checkEnvPackage, type CheckLine } from "./check.js";
export { loadScriptedTests, runScriptedTest, ScriptedTestSchema, type ScriptedTest, type ScriptedTestResult } from "./scripted.js";
export { loadSuite, runSuite, isSuiteFile, suiteMarkdown, suiteReportHtml, suiteRows, SuiteSchema, type Suite, type SuiteEnvResult, type RunSuiteOptions } from "./suite.js";
