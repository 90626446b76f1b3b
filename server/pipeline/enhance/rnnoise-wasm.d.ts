// The package ships JavaScript only; this is the one export the denoiser uses.
declare module '@echogarden/rnnoise-wasm' {
  const createModule: () => Promise<unknown>;
  export default createModule;
}
