// PetClinic client code. Set-up is small; most code runs only when the user acts
// (live validation, the vets filter, visit checks).
(function () {
  'use strict';
  var BUGS = window.WF_BUGS === true;
  var PAGE = document.body.getAttribute('data-page');
  var TODAY = '2024-03-15';

  function $(sel) { return document.querySelector(sel); }

  function setError(name, msg) {
    var el = document.querySelector('[data-error-for="' + name + '"]');
    if (el) { el.textContent = msg || ''; }
  }

  // ---- find owners -------------------------------------------------------------------
  function initFind() {
    var input = $('#lastName');
    input.addEventListener('input', function () {
      var v = input.value.trim();
      $('#search-hint').textContent = v ? 'Owners whose last name starts with \u201c' + v + '\u201d.' : 'Leave empty to list all owners.';
      setError('lastName', '');
    });
  }

  // ---- add / edit owner --------------------------------------------------------------
  var LABEL_WIDTH = 200;

  function initOwnerForm() {
    var address = $('#address');
    var tel = $('#telephone');
    var email = $('#email');
    address.addEventListener('input', function () {
      var v = address.value;
      var pad;
      if (BUGS) {
        // SEEDED BUG clinic-long-address: the mailing-label preview pads to 200 columns;
        // a longer address gives a negative length: "RangeError: Invalid array length".
        pad = new Array(LABEL_WIDTH - v.length).join('.');
      } else {
        pad = new Array(Math.max(0, LABEL_WIDTH - v.length)).join('.');
      }
      var label = $('#address-label');
      label.textContent = v ? 'Label: ' + v.slice(0, 40) + (v.length > 40 ? '\u2026' : '') : '';
      label.setAttribute('data-pad', String(pad.length));
    });
    tel.addEventListener('input', function () {
      var v = tel.value.trim();
      if (v && !/^\d+$/.test(v)) { setError('telephone', 'Telephone must contain digits only'); }
      else if (v.length > 10) { setError('telephone', 'Telephone must have at most 10 digits'); }
      else { setError('telephone', ''); }
    });
    email.addEventListener('change', function () {
      var v = email.value.trim();
      setError('email', v && v.indexOf('@') < 0 ? 'An e-mail address contains an @' : '');
    });
    $('#add-owner-form').addEventListener('submit', function () {
      ['firstName', 'lastName', 'city'].forEach(function (name) {
        var el = document.getElementById(name);
        setError(name, el.value.trim() ? '' : 'must not be blank');
      });
    });
  }

  // ---- add / edit pet ----------------------------------------------------------------
  function initPetForm() {
    var birth = $('#birthDate');
    birth.addEventListener('change', function () {
      var v = birth.value;
      if (!v) { $('#age-hint').textContent = ''; return; }
      if (v > TODAY) { setError('birthDate', 'must not be in the future'); $('#age-hint').textContent = ''; return; }
      setError('birthDate', '');
      var years = Number(TODAY.slice(0, 4)) - Number(v.slice(0, 4));
      if (TODAY.slice(5) < v.slice(5)) { years--; }
      $('#age-hint').textContent = years <= 0 ? 'Less than a year old' : years + ' year(s) old';
    });
    $('#name').addEventListener('input', function () {
      setError('name', $('#name').value.length > 30 ? 'must be at most 30 characters' : '');
    });
  }

  // ---- add visit ---------------------------------------------------------------------
  function initVisitForm() {
    var pet = window.PET || { name: '', visits: [] };
    var desc = $('#description');
    desc.addEventListener('input', function () {
      $('#visit-hint').textContent = desc.value.length + ' / 255';
    });
    $('#visit-form').addEventListener('submit', function (ev) {
      if (desc.value.trim() !== '') { return; }
      var hint;
      if (BUGS) {
        // SEEDED BUG clinic-visit-empty-description: suggests the previous visit's
        // description, but a pet without visits has none: "TypeError: Cannot read
        // properties of undefined (reading 'trim')". The form then submits anyway.
        var last = pet.visits[pet.visits.length - 1] || {};
        hint = 'Previous visit: ' + last.description.trim();
      } else {
        var prev = pet.visits[pet.visits.length - 1];
        hint = prev ? 'Previous visit: ' + prev.description.trim() : 'First visit of ' + pet.name + '.';
      }
      $('#visit-hint').textContent = hint;
      setError('description', 'must not be blank');
      ev.preventDefault();
    });
  }

  // ---- vets --------------------------------------------------------------------------
  function initVets() {
    var vets = window.VETS || [];
    var filter = 'all';
    function matches(v) {
      if (filter === 'all') { return true; }
      if (filter === 'none') { return v.specialties.length === 0; }
      return v.specialties.indexOf(filter) >= 0;
    }
    document.querySelectorAll('.chip').forEach(function (chip) {
      chip.addEventListener('click', function () {
        filter = chip.getAttribute('data-filter');
        document.querySelectorAll('.chip').forEach(function (c) { c.classList.toggle('selected', c === chip); });
        var rows = document.querySelectorAll('#vets tbody tr');
        for (var i = 0; i < rows.length; i++) { rows[i].hidden = !matches(vets[i]); }
        $('#contact-out').hidden = true;
      });
    });
    $('#contact-first').addEventListener('click', function () {
      var shown = vets.filter(matches);
      var text;
      if (BUGS) {
        // SEEDED BUG clinic-vets-contact: assumes the filter always leaves a vet:
        // "TypeError: Cannot read properties of undefined (reading 'firstName')".
        text = 'Call Dr. ' + shown[0].firstName + ' ' + shown[0].lastName + ' at extension 1' + vets.indexOf(shown[0]) + '.';
      } else {
        text = shown.length ? 'Call Dr. ' + shown[0].firstName + ' ' + shown[0].lastName + ' at extension 1' + vets.indexOf(shown[0]) + '.' : 'No veterinarian matches this filter.';
      }
      var out = $('#contact-out');
      out.textContent = text;
      out.hidden = false;
    });
  }

  var INIT = {
    find: initFind,
    owner_new: initOwnerForm,
    owner_edit: initOwnerForm,
    pet_new: initPetForm,
    pet_edit: initPetForm,
    visit_new: initVisitForm,
    vets: initVets
  };
  if (INIT[PAGE]) { INIT[PAGE](); }
})();
